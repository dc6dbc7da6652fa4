/**
 * Image bytes in and out of image_a. Input images (`image`, `input_image`) are fetched here through
 * the SSRF guard, admitted by their header (format, IMAGE_MAX_PIXELS) and sent upstream inline, so the provider never fetches a URL a caller chose
 * (issue 16). Outputs are downloaded at once — the provider's delivery URLs expire — checked to be
 * images and kept in our file store behind our own signed URLs (spec §4.7, §8.2).
 */
import { InputError, ServiceError, UpstreamError, invalidStructure, type RunContext, type StoredFile } from '../../core/sdk.js';

/** Largest input image sent inline (the provider's limit for inline files, contracts §9). */
export const MAX_INPUT_IMAGE_BYTES = 10 * 1024 * 1024;
/** Largest generated image accepted (a 2048×1024 PNG is a few MB). */
export const MAX_OUTPUT_IMAGE_BYTES = 32 * 1024 * 1024;

/** An image format recognised from its first bytes. */
export interface ImageKind {
  contentType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  extension: 'png' | 'jpg' | 'gif' | 'webp';
}

/** The format of `bytes` from its signature, or undefined when it is not one of the four. */
export function sniffImage(bytes: Uint8Array): ImageKind | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 16));
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return { contentType: 'image/png', extension: 'png' };
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { contentType: 'image/jpeg', extension: 'jpg' };
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.subarray(0, 6).toString('latin1'))) return { contentType: 'image/gif', extension: 'gif' };
  if (b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return { contentType: 'image/webp', extension: 'webp' };
  return undefined;
}

/**
 * Fetches a caller's image URL through the SSRF guard and returns it as a data URI. A URL that
 * cannot be fetched or is not a jpeg/png/gif/webp image is the caller's input: a 400 naming it.
 */
export async function inlineImage(ctx: RunContext<unknown>, field: string, url: string): Promise<string> {
  let res;
  try {
    res = await ctx.engines.http.request({ url, guard: true, maxBytes: MAX_INPUT_IMAGE_BYTES, maxRedirects: 3, timeoutMs: 30_000, signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    // The engine says why (a refused address, unreachable) in its public message; too large stays a 413.
    if (err instanceof UpstreamError || err instanceof InputError) throw new InputError(`Invalid input: 'input.${field}' could not be fetched (${err.message.replace(/\.$/, '')}).`, { cause: err });
    throw err;
  }
  if (res.status !== 200) throw new InputError(`Invalid input: 'input.${field}' could not be fetched (HTTP ${res.status}).`);
  const kind = sniffImage(res.body);
  if (!kind) throw new InputError(`Invalid input: 'input.${field}' is not a jpeg, png, gif or webp image.`);
  // Admitted by its header (IMAGE_MAX_PIXELS) before anything decodes it, here or upstream.
  ctx.engines.tools.admitImage(res.body, `input.${field}`);
  return `data:${kind.contentType};base64,${Buffer.from(res.body).toString('base64')}`;
}

/** One generated image, downloaded and checked. */
interface Downloaded extends ImageKind {
  bytes: Uint8Array;
}

/** Downloads one output URL; anything but an image is the provider's fault (502). */
async function download(ctx: RunContext<unknown>, url: string): Promise<Downloaded> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw invalidStructure(ctx, `output is not a URL: ${url.slice(0, 100)}`);
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw invalidStructure(ctx, `output URL scheme ${target.protocol}`);
  // Files served by the API itself need its key; anything elsewhere (the delivery CDN) is a
  // provider-chosen URL: no key, and the SSRF guard applies as to any URL we did not configure.
  const own = target.origin === new URL(String(ctx.config.baseUrl)).origin;
  let res;
  try {
    res = await ctx.engines.http.request({
      url: target.toString(),
      guard: !own,
      headers: own ? { authorization: `Bearer ${String(ctx.config.apiKey)}`, accept: 'image/*' } : { accept: 'image/*' },
      maxBytes: MAX_OUTPUT_IMAGE_BYTES,
      maxRedirects: 3,
      timeoutMs: 60_000,
      signal: ctx.signal,
    });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    throw new UpstreamError(`Failed to retrieve data from ${ctx.provider} service.`, { cause: err instanceof ServiceError ? new Error(err.message) : err });
  }
  if (res.status !== 200) throw new UpstreamError(`Failed to retrieve data from ${ctx.provider} service.`, { cause: new Error(`output download HTTP ${res.status}`) });
  const declared = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (declared && !declared.startsWith('image/') && declared !== 'application/octet-stream') throw invalidStructure(ctx, `output is ${declared}, not an image`);
  const kind = sniffImage(res.body);
  if (!kind) throw invalidStructure(ctx, `output of ${res.body.byteLength} bytes is not a png, jpeg, gif or webp image`);
  return { ...kind, bytes: res.body };
}

/**
 * Downloads every output and only then stores them, so a bad output (502) leaves no file behind.
 * Temporary files keep the store's 24 h default; `permanent` ones stay until deleted.
 */
export async function storeOutputs(ctx: RunContext<unknown>, urls: string[], permanent: boolean): Promise<StoredFile[]> {
  const images = await Promise.all(urls.map((u) => download(ctx, u)));
  const stored: StoredFile[] = [];
  for (const img of images) stored.push(await ctx.engines.files.put(img.bytes, { contentType: img.contentType, extension: img.extension, permanent }));
  return stored;
}
