/**
 * creator_a's professional-network endpoints (spec §4.3; issue 13): a company page and a person's
 * public profile, mapped field by field onto the `bizsite_company` and `bizsite_profile` shapes.
 * Only what the page shows publicly comes back: absent sections are left out, never invented.
 */
import { defineEndpoint, flat, invalidStructure } from '../../core/sdk.js';
import { bizsiteCompany, bizsiteProfile } from '../../core/catalogue.js';
import { creatorGet, type Json } from './client.js';

const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x) => x && typeof x === 'object' && !Array.isArray(x)) : []);

/** A non-empty string, or undefined. */
function s(...vs: unknown[]): string | undefined {
  for (const v of vs) {
    if (typeof v === 'string' && v.trim()) return v.trim();
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return undefined;
}

/** An integer from a number or a shown count ("12,847", "30K followers", "1.2M"), or undefined. */
export function count(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : undefined;
  if (typeof v !== 'string') return undefined;
  const m = /([\d.,]+)\s*([KkMmBb])?/.exec(v);
  if (!m) return undefined;
  const n = Number(m[1]!.replace(/,/g, '')) * ({ k: 1e3, m: 1e6, b: 1e9 }[m[2]?.toLowerCase() as 'k'] ?? 1);
  return Number.isFinite(n) ? Math.round(n) : undefined;
}

/** A date as shown, from a string or the `{ year, month }` objects some answers carry. */
function date(v: unknown): string | undefined {
  if (v && typeof v === 'object' && 'year' in v) {
    const d = v as { year?: number; month?: number };
    return d.month ? `${d.year}-${String(d.month).padStart(2, '0')}` : s(d.year);
  }
  return s(v);
}

/** Drops undefined fields, so missing sections are absent rather than null (spec §4.3). */
function compact<T extends Json>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0))) as T;
}

function recentPost(p: Json): Json {
  const e = obj(p.engagement);
  return compact({
    title: s(p.title, p.text),
    activityType: s(p.activityType),
    link: s(p.link, p.url),
    image: s(p.image),
    datePublished: s(p.datePublished),
    engagement: p.engagement ? compact({ likes: count(e.likes), comments: count(e.comments), shares: count(e.shares) }) : undefined,
  });
}

/** The company answer (contracts §3 `/v1/linkedin/company`) as spec §4.3 shows it. */
export function companyOf(b: Json): Json {
  const loc = obj(b.location);
  const foundedYear = count(b.founded);
  return compact({
    success: true,
    name: s(b.name)!,
    description: s(b.description, b.about),
    website: s(b.website),
    logo: s(b.logo),
    image: s(b.coverImage, b.image),
    slogan: s(b.slogan),
    industry: s(b.industry),
    size: s(b.size, b.companySize),
    companySize: s(b.companySize, b.size),
    headquarters: s(b.headquarters),
    type: s(b.type, b.companyType),
    companyType: s(b.companyType, b.type),
    location: b.location ? compact({ city: s(loc.city), state: s(loc.state), country: s(loc.country) }) : undefined,
    employeeCount: count(b.employeeCount),
    founded: foundedYear && foundedYear > 999 && foundedYear < 3000 ? foundedYear : undefined,
    followers: count(b.followers ?? b.followerCount),
    specialties: Array.isArray(b.specialties) ? b.specialties.filter((x: unknown) => typeof x === 'string') : typeof b.specialties === 'string' ? b.specialties.split(/\s*,\s*/).filter(Boolean) : undefined,
    posts: arr(b.posts).map((p) => compact({ url: s(p.url, p.link), datePublished: s(p.datePublished, p.date), text: s(p.text, p.title) })),
    recentPosts: arr(b.recentPosts).map(recentPost),
    employees: arr(b.employees).map((e) => compact({ name: s(e.name), title: s(e.title, e.headline), image: s(e.image), bizsiteUrl: s(e.bizsiteUrl, e.link, e.url, e.profileUrl) })),
    locations: arr(b.locations).map((l) => compact({ city: s(l.city), state: s(l.state), country: s(l.country), isHeadquarters: typeof l.isHeadquarters === 'boolean' ? l.isHeadquarters : undefined, employeeCount: s(l.employeeCount) })),
    jobOpenings: arr(b.jobOpenings ?? b.jobs).map((j) => compact({ title: s(j.title), location: s(j.location), type: s(j.type), postedDate: s(j.postedDate), url: s(j.url, j.link) })),
  });
}

/** The person answer (`/v1/linkedin/profile`) as the `bizsite_profile` shape. */
export function profileOf(b: Json, url: string): Json {
  return compact({
    success: true,
    name: s(b.name, [b.firstName, b.lastName].filter(Boolean).join(' '))!,
    headline: s(b.headline, b.position),
    location: s(b.location),
    image: s(b.image, b.photo, b.profilePicture),
    url: s(b.url, b.publicProfileUrl) ?? url,
    followers: count(b.followers ?? b.followerCount),
    connections: s(b.connections)?.replace(/\s*connections?$/i, ''),
    about: s(b.about, b.summary),
    experience: arr(b.experience).map((e) => {
      const m = obj(e.member);
      return compact({ title: s(e.title, m.roleName, m.title), company: s(e.company, e.companyName, e.name), companyUrl: s(e.companyUrl, e.url), location: s(e.location), startDate: date(e.startDate ?? m.startDate), endDate: date(e.endDate ?? m.endDate), description: s(e.description, m.description) });
    }),
    education: arr(b.education).map((e) => {
      const m = obj(e.member);
      return compact({ school: s(e.schoolName, e.name, e.school), schoolUrl: s(e.url), degree: s([s(e.degree, e.degreeName), s(e.fieldOfStudy)].filter(Boolean).join(', ')), startDate: date(e.startDate ?? m.startDate), endDate: date(e.endDate ?? m.endDate) });
    }),
    recentPosts: arr(b.recentPosts ?? b.activity).map(recentPost),
  });
}

const company = defineEndpoint({
  operation: 'bizsite_company',
  title: 'creator_a company page',
  summary: 'Public data of a company page (spec §4.3).',
  visibility: 'legacy',
  input: bizsiteCompany.input,
  output: bizsiteCompany.output!,
  cost: flat(10),
  messages: bizsiteCompany.messages,
  validate: bizsiteCompany.validate,
  async run(input, ctx) {
    const notFound = `Company not found for URL: ${input.url}`;
    const body = await creatorGet(ctx, { path: '/v1/linkedin/company', query: { url: input.url }, site: 'bizsite', notFound });
    if (!s(body.name)) throw invalidStructure(ctx, 'company without a name', 'bizsite');
    return companyOf(body) as any;
  },
});

const profile = defineEndpoint({
  operation: 'bizsite_profile',
  title: "creator_a person's profile",
  summary: "A person's public profile: headline, location, followers, connections, about, experience, education, recent posts.",
  visibility: 'legacy',
  input: bizsiteProfile.input,
  output: bizsiteProfile.output!,
  cost: flat(10),
  messages: bizsiteProfile.messages,
  validate: bizsiteProfile.validate,
  async run(input, ctx) {
    const notFound = `Profile not found for URL: ${input.url}`;
    const body = await creatorGet(ctx, { path: '/v1/linkedin/profile', query: { url: input.url }, site: 'bizsite', notFound });
    const out = profileOf(body, input.url);
    if (!out.name) throw invalidStructure(ctx, 'profile without a name', 'bizsite');
    return out as any;
  },
});

/** The professional-network endpoints of creator_a. */
export const bizsite = { company, profile };
