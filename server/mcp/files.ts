/**
 * Files a tool produced (issue 17 §4): PDFs, screenshots and images come back as our signed
 * download URLs (spec §8.2, retained 24 h). Each one is also offered as an MCP `resource_link`,
 * and a small image (at most 1 MB) as the image itself, so an agent can look at a screenshot
 * without fetching it. Only URLs whose signature the file store accepts count: a URL a page
 * merely mentions is not ours to read.
 */
import type { ImageContent, ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import type { FileStore } from '../../core/engines/files/types.js';

/** Largest image sent inline (issue 17: "for small images, the image content itself"). */
export const INLINE_IMAGE_MAX_BYTES = 1_000_000;
/** Files looked at per answer; a listing with more links gets the first ones. */
const MAX_FILES = 10;
/** Inline images per answer, so one call cannot flood a model's context. */
const MAX_INLINE_IMAGES = 4;
/** Strings longer than a URL are page content, not a link to a produced file. */
const MAX_URL_LENGTH = 2048;

const SIGNED = /^https?:\/\/[^\s?#]+\/files\/([A-Za-z0-9_-]{1,64})\?expires=(\d{1,20})&sig=([0-9a-f]{64})$/;

/** Candidate signed URLs anywhere in the output, in order, without repeats. */
function signedUrls(data: unknown): { url: string; id: string; expires: string; sig: string }[] {
  const found = new Map<string, { url: string; id: string; expires: string; sig: string }>();
  const stack: unknown[] = [data];
  let visited = 0;
  // Iterative and bounded: outputs can be large (a crawl of many pages).
  while (stack.length > 0 && found.size < MAX_FILES && visited < 100_000) {
    const v = stack.pop();
    visited += 1;
    if (typeof v === 'string') {
      if (v.length > MAX_URL_LENGTH || found.has(v)) continue;
      const m = SIGNED.exec(v);
      if (m) found.set(v, { url: v, id: m[1]!, expires: m[2]!, sig: m[3]! });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (v && typeof v === 'object') {
      stack.push(...Object.values(v).reverse());
    }
  }
  return [...found.values()];
}

/** Content items for the files in `data`: a link each, plus small images inline. */
export async function fileContent(files: FileStore, data: unknown): Promise<(ResourceLink | ImageContent)[]> {
  const out: (ResourceLink | ImageContent)[] = [];
  let inlined = 0;
  for (const f of signedUrls(data)) {
    let opened;
    try {
      opened = await files.open(f.id, f.expires, f.sig);
    } catch {
      continue; // not one of ours, or already expired
    }
    out.push({ type: 'resource_link', uri: f.url, name: opened.filename, mimeType: opened.contentType, size: opened.size, description: `Download link, valid until ${opened.expiresAt.toISOString()}.` });
    if (opened.contentType.startsWith('image/') && opened.size <= INLINE_IMAGE_MAX_BYTES && inlined < MAX_INLINE_IMAGES) {
      try {
        const bytes = await opened.bytes();
        out.push({ type: 'image', data: bytes.toString('base64'), mimeType: opened.contentType });
        inlined += 1;
      } catch {
        // Swept between open and read: the link alone stands.
      }
    }
  }
  return out;
}
