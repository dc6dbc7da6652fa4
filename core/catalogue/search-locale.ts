/**
 * Locale forms the search capabilities accept (issue 14, automation platforms' inputs): a country
 * may come as a locale whose region is the country (`pt-BR` → `br`), a language with its region
 * (`zh-TW`, `pt_BR`). Providers reduce them to the codes engines take with these two helpers.
 */

/** `GB` → `gb`, `pt-BR` / `pt_BR` → `br`; undefined stays undefined. */
export function countryCode(country: string | undefined): string | undefined {
  if (country === undefined) return undefined;
  const parts = country.trim().split(/[-_]/);
  return parts[parts.length - 1]!.toLowerCase();
}

/** `EN` → `en`, `zh_TW` / `zh-TW` → `zh-tw` (the engines' `hl` form); undefined stays undefined. */
export function languageCode(language: string | undefined): string | undefined {
  return language === undefined ? undefined : language.trim().replace(/_/g, '-').toLowerCase();
}
