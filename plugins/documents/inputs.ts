/**
 * Reads `file` / `files` (spec §4.6 `inputMethod`) given as a URL, fetched through the HTTP engine
 * with the SSRF guard and a size cap (base64 content is the SDK's `fromBase64`).
 */
import { InputError, PayloadTooLargeError, ServiceError, UpstreamError, tooLarge, type Engines } from '../../core/sdk.js';

/** What names an input's type. */
export interface RawInput {
  /** Extension from the URL path (lower case, no dot), if it had one. */
  pathExtension?: string;
  /** Declared media type (`Content-Type` or the `data:` URL's). */
  contentType?: string;
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

/**
 * Downloads a user-supplied URL through the SSRF guard into `file` (a folder of the caller's that
 * outlives the file's use), counted in the in-flight byte budget while it arrives (issue 24
 * finding 6: it was gathered in memory, uncounted) and never read whole here: merge-pdfs hands
 * the file to its PDF thread, convert-to-pdf to LibreOffice's pool. Answers its size and what
 * names its type.
 */
export async function downloadTo(engines: Engines, url: string, label: string, maxBytes: number, signal: AbortSignal, file: string): Promise<RawInput & { bytes: number }> {
  if (!isHttpUrl(url)) throw new InputError(`'${label}' must be an http or https URL.`);
  let res;
  try {
    res = await engines.http.download({ url, guard: true, maxBytes, timeoutMs: 60_000, maxRedirects: 5, signal, file });
  } catch (err) {
    // An unreachable or failing user URL is a problem with the input (400), as in Gotenberg;
    // the guard's refusals (400) and a full byte budget (429) pass through; the size cap names
    // the field, as for base64.
    if (err instanceof PayloadTooLargeError) throw tooLarge(label, maxBytes);
    if (err instanceof UpstreamError) throw new InputError(`Could not download '${label}': ${err.message}`, { cause: err });
    if (err instanceof ServiceError || signal.aborted) throw err;
    throw new InputError(`Could not download '${label}': ${(err as Error).message}`, { cause: err });
  }
  if (res.status >= 400) throw new InputError(`Could not download '${label}': the server answered HTTP ${res.status}.`);
  if (res.bytes === 0) throw new InputError(`'${label}' is empty.`);
  const last = new URL(res.url || url).pathname.split('/').pop() ?? '';
  const dot = last.lastIndexOf('.');
  const pathExtension = dot > 0 ? decodedOrUndefined(last.slice(dot + 1))?.toLowerCase() : undefined;
  const contentType = Object.entries(res.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  return { bytes: res.bytes, pathExtension, contentType };
}

/** A percent-encoded path segment, decoded; undefined when it is malformed (the type then comes from the headers or bytes). */
function decodedOrUndefined(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
