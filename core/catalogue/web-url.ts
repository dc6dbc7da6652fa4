/**
 * The URL rules every web capability shares (spec §7.1): the 400 text for a missing `url`, the
 * scheme a bare host gets, and the check that runs before any credit is reserved.
 */
import { Type } from '../sdk.js';

/** Spec §7.1: the 400 text for a missing or empty `url`. */
export const URL_REQUIRED = "'url' parameter is required and must be a non-empty string.";

/** A URL field of a web capability's input. */
export const Url = (description: string) => Type.String({ description, minLength: 1, maxLength: 8192 });

/**
 * The URL a user meant: trimmed, and `https://` added to a bare host such as `example.com/docs`
 * (people paste those; a scheme-less string is never a valid absolute URL otherwise).
 */
export function userUrl(url: string): string {
  const u = url.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(u) && !/^[^/:]+:\d+(\/|$)/.test(u) ? u : `https://${u.replace(/^\/\//, '')}`;
}

/** Rejects URLs that are not absolute http(s) before any credit is reserved. */
export function checkUrl(url: string): string | undefined {
  if (typeof url !== 'string' || !url.trim()) return URL_REQUIRED;
  let u: URL;
  try {
    u = new URL(userUrl(url));
    if (!u.hostname) throw new Error('no host');
  } catch {
    return `Invalid URL: '${url.slice(0, 200)}' is not an absolute http or https URL.`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `Invalid URL: only http and https URLs can be fetched (got ${u.protocol.replace(/:$/, '')}).`;
  return undefined;
}
