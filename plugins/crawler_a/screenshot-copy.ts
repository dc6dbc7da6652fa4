/**
 * crawler_a answers a screenshot as the URL of an image on its own storage, which expires on the
 * provider's terms. Like the other providers' screenshots (issue 28), the image is fetched once
 * and put in our file store, so the caller gets our signed 24-hour link and never the provider's.
 */
import { UpstreamError, type RunContext } from '../../core/sdk.js';

const TYPES: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };
/** Largest screenshot copied (a full-page capture of a long page is a few MB). */
const MAX_BYTES = 50 * 1024 * 1024;

/** The image type from its first bytes (the provider's storage may not say). */
function sniff(bytes: Uint8Array): string | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 16));
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

/** Copies the provider's image at `source` into the file store; returns our link and its type. */
export async function copyScreenshot(ctx: RunContext<any, any>, source: string): Promise<{ url: string; contentType: string; size: number }> {
  const failed = (why: string, cause?: unknown) => new UpstreamError('Failed to retrieve data from crawler_a service.', { cause: cause ?? new Error(why) });
  let from: URL;
  try {
    from = new URL(source);
  } catch (err) {
    throw failed('screenshot URL is not a URL', err);
  }
  // The provider's own host is as trusted as its base URL; any other host goes through the SSRF guard.
  const ownHost = from.host === new URL(String(ctx.config.baseUrl)).host;
  let res;
  try {
    res = await ctx.engines.http.request({ url: from.href, guard: !ownHost, maxBytes: MAX_BYTES, timeoutMs: 60_000, maxRedirects: 3, signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    throw failed('screenshot download failed', err);
  }
  if (res.status !== 200) throw failed(`screenshot download answered HTTP ${res.status}`);
  const contentType = sniff(res.body);
  if (!contentType) throw new UpstreamError('Received invalid data structure from crawler_a service.', { cause: new Error('screenshot is not a PNG, JPEG or WebP image') });
  const stored = await ctx.engines.files.put(res.body, { contentType, extension: TYPES[contentType]!, retentionMs: 24 * 60 * 60 * 1000 });
  ctx.usage.add('output_bytes', res.body.byteLength);
  return { url: stored.url, contentType, size: res.body.byteLength };
}
