/**
 * `location: { country, languages }` (issue 27) as the browser settings a visitor from there
 * would have: Accept-Language (and so navigator.languages), the Intl locale and the timezone.
 * The address the site sees stays the server's (or the operator's proxy's).
 */
import { InputError } from '../../core/sdk.js';

/** Main language and a representative timezone per country (the most populous zone where there are several). */
const COUNTRIES: Record<string, [language: string, timezone: string]> = {
  US: ['en', 'America/New_York'], GB: ['en', 'Europe/London'], IE: ['en', 'Europe/Dublin'], CA: ['en', 'America/Toronto'],
  AU: ['en', 'Australia/Sydney'], NZ: ['en', 'Pacific/Auckland'], IN: ['hi', 'Asia/Kolkata'], ZA: ['en', 'Africa/Johannesburg'],
  DE: ['de', 'Europe/Berlin'], AT: ['de', 'Europe/Vienna'], CH: ['de', 'Europe/Zurich'], FR: ['fr', 'Europe/Paris'],
  BE: ['nl', 'Europe/Brussels'], NL: ['nl', 'Europe/Amsterdam'], LU: ['fr', 'Europe/Luxembourg'], ES: ['es', 'Europe/Madrid'],
  PT: ['pt', 'Europe/Lisbon'], IT: ['it', 'Europe/Rome'], GR: ['el', 'Europe/Athens'], PL: ['pl', 'Europe/Warsaw'],
  CZ: ['cs', 'Europe/Prague'], SK: ['sk', 'Europe/Bratislava'], HU: ['hu', 'Europe/Budapest'], RO: ['ro', 'Europe/Bucharest'],
  BG: ['bg', 'Europe/Sofia'], HR: ['hr', 'Europe/Zagreb'], SI: ['sl', 'Europe/Ljubljana'], RS: ['sr', 'Europe/Belgrade'],
  DK: ['da', 'Europe/Copenhagen'], SE: ['sv', 'Europe/Stockholm'], NO: ['nb', 'Europe/Oslo'], FI: ['fi', 'Europe/Helsinki'],
  IS: ['is', 'Atlantic/Reykjavik'], EE: ['et', 'Europe/Tallinn'], LV: ['lv', 'Europe/Riga'], LT: ['lt', 'Europe/Vilnius'],
  UA: ['uk', 'Europe/Kyiv'], RU: ['ru', 'Europe/Moscow'], TR: ['tr', 'Europe/Istanbul'], IL: ['he', 'Asia/Jerusalem'],
  AE: ['ar', 'Asia/Dubai'], SA: ['ar', 'Asia/Riyadh'], EG: ['ar', 'Africa/Cairo'], MA: ['ar', 'Africa/Casablanca'],
  NG: ['en', 'Africa/Lagos'], KE: ['en', 'Africa/Nairobi'], BR: ['pt', 'America/Sao_Paulo'], MX: ['es', 'America/Mexico_City'],
  AR: ['es', 'America/Argentina/Buenos_Aires'], CL: ['es', 'America/Santiago'], CO: ['es', 'America/Bogota'], PE: ['es', 'America/Lima'],
  JP: ['ja', 'Asia/Tokyo'], KR: ['ko', 'Asia/Seoul'], CN: ['zh', 'Asia/Shanghai'], TW: ['zh', 'Asia/Taipei'],
  HK: ['zh', 'Asia/Hong_Kong'], SG: ['en', 'Asia/Singapore'], MY: ['ms', 'Asia/Kuala_Lumpur'], ID: ['id', 'Asia/Jakarta'],
  TH: ['th', 'Asia/Bangkok'], VN: ['vi', 'Asia/Ho_Chi_Minh'], PH: ['en', 'Asia/Manila'], PK: ['ur', 'Asia/Karachi'],
  BD: ['bn', 'Asia/Dhaka'],
};

/** The browser settings for a `location`. */
export function localeFor(loc: { country?: string; languages?: string[] }): { acceptLanguage?: string; locale?: string; timezone?: string } {
  const country = loc.country?.toUpperCase();
  const known = country ? COUNTRIES[country] : undefined;
  // A country with no settings here used to do nothing at all; with languages it still means something.
  if (country && !known && !loc.languages?.length) {
    throw new InputError(`'location.country' '${loc.country}' is not a country this service has settings for; give 'location.languages' for it, or one of: ${Object.keys(COUNTRIES).sort().join(', ')}.`);
  }
  const languages = loc.languages?.length ? loc.languages : known && country ? [`${known[0]}-${country}`] : [];
  // Each tag, then its bare language, with falling weights, as browsers send them.
  const tags: string[] = [];
  for (const l of languages) for (const t of [l, l.split('-')[0]!]) if (!tags.includes(t)) tags.push(t);
  const acceptLanguage = tags.length ? tags.map((t, n) => (n === 0 ? t : `${t};q=${Math.max(0.1, 1 - n / 10).toFixed(1)}`)).join(',') : undefined;
  return { acceptLanguage, locale: languages[0], timezone: known?.[1] };
}
