/**
 * Reads `file` / `files` (spec §4.6 `inputMethod`): base64 content (a `data:` URL is accepted
 * too) or a URL fetched through the HTTP engine with the SSRF guard and a size cap.
 */
import { InputError, PayloadTooLargeError, ServiceError, UpstreamError, type Engines } from '../../core/sdk.js';

/** One input as read: its bytes plus whatever names its type. */
export interface RawInput {
  data: Uint8Array;
  /** Extension from the URL path (lower case, no dot), if it had one. */
  pathExtension?: string;
  /** Declared media type (`Content-Type` or the `data:` URL's). */
  contentType?: string;
}

/** A byte limit as people read it (`50 MB`, `10 KB`). */
export function size(bytes: number): string {
  return bytes >= 1e6 ? `${Math.round(bytes / 1e6)} MB` : `${Math.round(bytes / 1e3)} KB`;
}

/**
 * An input over its cap: 413 `PAYLOAD_TOO_LARGE`, the catalogue's code for a body or fetched
 * input above the documented limit, whether it came as base64 or from a URL.
 */
export function tooLarge(label: string, maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`'${label}' is larger than the ${size(maxBytes)} limit.`);
}

const BASE64 = /^[A-Za-z0-9+/\-_]*={0,2}$/;

/** Decodes base64 (standard or URL-safe, whitespace ignored); `label` names the field in errors. */
export function decodeBase64(value: string, label: string, maxBytes: number): RawInput {
  let text = value.trim();
  let contentType: string | undefined;
  const dataUrl = /^data:([^;,]*)(?:;[^,]*)?;base64,/i.exec(text);
  if (dataUrl) {
    contentType = dataUrl[1] || undefined;
    text = text.slice(dataUrl[0].length);
  }
  text = text.replace(/\s+/g, '');
  if (!BASE64.test(text) || text.length % 4 === 1) throw new InputError(`'${label}' is not valid base64.`);
  if (Math.floor((text.length * 3) / 4) > maxBytes + 3) throw tooLarge(label, maxBytes);
  const data = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
  if (data.byteLength === 0) throw new InputError(`'${label}' is empty.`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), contentType };
}

/** True for an absolute http(s) URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Downloads a user-supplied URL through the SSRF guard. */
export async function download(engines: Engines, url: string, label: string, maxBytes: number, signal: AbortSignal): Promise<RawInput> {
  if (!isHttpUrl(url)) throw new InputError(`'${label}' must be an http or https URL.`);
  let res;
  try {
    res = await engines.http.request({ url, guard: true, maxBytes, timeoutMs: 60_000, maxRedirects: 5, signal });
  } catch (err) {
    // An unreachable or failing user URL is a problem with the input (400), as in Gotenberg;
    // the guard's refusals (400) pass through; the size cap names the field, as for base64.
    if (err instanceof PayloadTooLargeError) throw tooLarge(label, maxBytes);
    if (err instanceof UpstreamError) throw new InputError(`Could not download '${label}': ${err.message}`, { cause: err });
    if (err instanceof ServiceError) throw err;
    throw new InputError(`Could not download '${label}': ${(err as Error).message}`, { cause: err });
  }
  if (res.status >= 400) throw new InputError(`Could not download '${label}': the server answered HTTP ${res.status}.`);
  if (res.body.byteLength === 0) throw new InputError(`'${label}' is empty.`);
  const last = new URL(res.url || url).pathname.split('/').pop() ?? '';
  const dot = last.lastIndexOf('.');
  const pathExtension = dot > 0 ? decodedOrUndefined(last.slice(dot + 1))?.toLowerCase() : undefined;
  const contentType = Object.entries(res.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  return { data: res.body, pathExtension, contentType };
}

/** A percent-encoded path segment, decoded; undefined when it is malformed (the type then comes from the headers or bytes). */
function decodedOrUndefined(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
