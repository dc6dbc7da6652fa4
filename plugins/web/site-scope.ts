/**
 * Which URLs a crawl or a map keeps (issue 25): the normal form under which a URL is
 * remembered, the site it belongs to, and the path rules a user gave. Pure functions with no
 * imports, so they run in the compute workers: the user's regular expressions are only ever
 * matched there, under the worker's time limit, never on the thread that serves requests.
 */

/** The rules of one crawl or map, as plain data (structured-cloned into workers). */
export interface SiteScope {
  /** The start URL's site (host without `www.`). */
  site: string;
  /** Subdomains of `site` are in scope too. */
  subdomains: boolean;
  /** URLs differing only in their query are one page: the query is dropped. */
  ignoreQuery: boolean;
  /** Path regular expressions (already checked by the capability); empty: every path. */
  include: string[];
  exclude: string[];
}

const SKIP_EXTENSIONS = /\.(?:jpe?g|png|gif|webp|svg|ico|bmp|css|js|mjs|json|xml|zip|gz|tgz|rar|7z|mp3|mp4|m4a|wav|avi|mov|webm|woff2?|ttf|eot|exe|dmg|iso|apk)$/i;
const TRACKING = /^(utm_[a-z]+|gclid|fbclid|mc_cid|mc_eid)$/i;
/** Paths longer than this are not matched against user patterns (and are left out). */
const MAX_MATCHED_PATH = 2048;

/**
 * The form under which a URL is remembered: lower-case scheme and host, no default port, no
 * fragment, no tracking parameters, sorted query (none with `ignoreQuery`), no trailing slash
 * except for the root.
 */
export function normaliseUrl(raw: string, ignoreQuery = false): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  u.hash = '';
  u.username = '';
  u.password = '';
  const params = ignoreQuery ? [] : [...u.searchParams].filter(([k]) => !TRACKING.test(k)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  u.search = params.length ? new URLSearchParams(params).toString() : '';
  if (u.pathname.length > 1 && u.pathname.endsWith('/')) u.pathname = u.pathname.replace(/\/+$/, '') || '/';
  return u.href;
}

/** Same site: the same host, with or without a leading `www.` (scheme may differ). */
export function siteOf(url: string): string {
  return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
}

/** The host of `url` is the scope's site, or one of its subdomains when they are allowed. */
export function onSite(url: string, scope: Pick<SiteScope, 'site' | 'subdomains'>): boolean {
  const host = siteOf(url);
  return host === scope.site || (scope.subdomains && host.endsWith(`.${scope.site}`));
}

/** A scope's patterns compiled once per call. */
export interface CompiledScope extends SiteScope {
  includeRe: RegExp[];
  excludeRe: RegExp[];
}

/** Compiles the scope's patterns (they were checked before any work started). */
export function compileScope(scope: SiteScope): CompiledScope {
  return { ...scope, includeRe: scope.include.map((p) => new RegExp(p)), excludeRe: scope.exclude.map((p) => new RegExp(p)) };
}

/** The user's path rules alone: included (when there are include rules) and not excluded. */
export function pathAllowed(url: string, scope: CompiledScope): boolean {
  if (!scope.includeRe.length && !scope.excludeRe.length) return true;
  const path = new URL(url).pathname;
  if (path.length > MAX_MATCHED_PATH) return false;
  if (scope.includeRe.length && !scope.includeRe.some((r) => r.test(path))) return false;
  return !scope.excludeRe.some((r) => r.test(path));
}

/**
 * Of `links`, the distinct normalised URLs a crawl or map may visit: on the site, not a file
 * type that is never a page, within the path rules. Order is kept; at most `max` are returned.
 */
export function scopeLinks(links: string[], scope: SiteScope, max = Infinity): string[] {
  const compiled = compileScope(scope);
  const out = new Set<string>();
  for (const link of links) {
    if (out.size >= max) break;
    const norm = normaliseUrl(link, scope.ignoreQuery);
    if (!norm || out.has(norm)) continue;
    if (!onSite(norm, scope) || SKIP_EXTENSIONS.test(new URL(norm).pathname)) continue;
    if (!pathAllowed(norm, compiled)) continue;
    out.add(norm);
  }
  return [...out];
}
