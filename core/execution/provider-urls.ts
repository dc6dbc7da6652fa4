/**
 * Provider-bound URLs pass the SSRF guard before a third-party provider sees them (issue 24
 * finding 11). Our own engines check addresses at connect time; a provider fetches the URL on its
 * side, where our guard cannot reach, so a crawl of `http://127.0.0.1/…` handed to a crawling
 * service would probe whatever that service can reach. The executor runs this once for every
 * endpoint of a plugin that is not service-managed, whatever the plugin or field.
 */
import { InputError } from '../errors.js';
import type { SsrfGuard } from '../engines/http/guard.js';

/** Field names whose strings are URLs even when sent without a scheme (`example.com/docs`). */
const URL_FIELD = /(^|_)urls?$|Urls?$/;
/** At most this many hosts are resolved per call; inputs are bounded by the body limit anyway. */
const MAX_HOSTS = 100;

function asUrl(value: string, urlField: boolean): URL | undefined {
  const v = value.trim();
  if (/^https?:\/\//i.test(v)) {
    try {
      return new URL(v);
    } catch {
      return undefined;
    }
  }
  // A bare host in a URL field is what the capabilities read as https:// (core/catalogue/web.ts).
  if (!urlField || /\s/.test(v) || !/^[\w.[\]:-]+([/?#]|$)/.test(v)) return undefined;
  try {
    return new URL(`https://${v}`);
  } catch {
    return undefined;
  }
}

/**
 * The hosts of the URLs in an input: top-level strings, arrays of strings and the string fields
 * of objects in arrays (`files: [{ url }]`): where the jobs of this service carry URLs.
 */
export function urlHostsIn(input: unknown): string[] {
  const hosts = new Set<string>();
  const add = (value: unknown, field: string) => {
    if (typeof value !== 'string') return;
    const url = asUrl(value, URL_FIELD.test(field));
    if (url?.hostname) hosts.add(url.hostname);
  };
  if (!input || typeof input !== 'object' || Array.isArray(input)) return [];
  for (const [field, value] of Object.entries(input)) {
    if (!Array.isArray(value)) {
      add(value, field);
      continue;
    }
    for (const item of value.slice(0, MAX_HOSTS)) {
      if (item && typeof item === 'object' && !Array.isArray(item)) for (const [f, v] of Object.entries(item)) add(v, f);
      else add(item, field);
    }
  }
  return [...hosts].slice(0, MAX_HOSTS);
}

/**
 * Throws the guard's 400 (`URL not allowed: … resolves to a loopback address…`) when a URL of the
 * input resolves to a private, loopback, link-local or reserved address, unless the operator
 * allows it (`ALLOW_PRIVATE_NETWORK`, `ALLOW_HOSTS`). A name that does not resolve here is left
 * to the provider: it may resolve on the provider's side, and nothing private is reached through it.
 */
export async function guardProviderUrls(guard: SsrfGuard, input: unknown): Promise<void> {
  const hosts = urlHostsIn(input).filter((h) => !guard.exempt(h));
  await Promise.all(
    hosts.map(async (host) => {
      try {
        await guard.checkHost(host);
      } catch (err) {
        if (err instanceof InputError) throw err;
      }
    }),
  );
}
