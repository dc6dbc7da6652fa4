/**
 * Reading one sitemap file (sitemaps.org protocol) in a compute worker: a gzipped file is
 * inflated with a cap on its size (a few kilobytes can inflate to gigabytes), then the `<loc>`
 * entries are picked out by a single forward scan, so a hostile file costs time in proportion to
 * its length and nothing more.
 */
import { gunzipSync } from 'node:zlib';

/** What one sitemap file holds. */
export interface SitemapFile {
  /** `index`: its entries are further sitemaps; `urlset`: pages; `unknown`: neither (not a sitemap). */
  kind: 'index' | 'urlset' | 'unknown';
  /** Entry URLs, in file order, at most the `max` asked for. */
  locs: string[];
  /** Why the file was not read (too large once inflated, not gzip after all). */
  error?: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeXml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|apos|#\d{1,7}|#x[0-9a-f]{1,6});/gi, (m, e: string) => {
    if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? m;
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });
}

/** The file's text: inflated when it starts with the gzip magic bytes, within `maxBytes`. */
export function sitemapText(bytes: Uint8Array, maxBytes: number): { text?: string; error?: string } {
  let raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (raw[0] === 0x1f && raw[1] === 0x8b) {
    try {
      raw = gunzipSync(raw, { maxOutputLength: maxBytes });
    } catch (err) {
      const code = (err as { code?: string }).code;
      return { error: code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError ? `larger than ${maxBytes} bytes once decompressed` : `not a readable gzip file (${(err as Error).message})` };
    }
  }
  if (raw.byteLength > maxBytes) return { error: `larger than ${maxBytes} bytes` };
  return { text: raw.toString('utf8') };
}

/** The entries of a sitemap's text: `<loc>` values under `<urlset>` or `<sitemapindex>`. */
export function sitemapLocs(text: string, max: number): SitemapFile {
  const head = text.slice(0, 4096).toLowerCase();
  const index = head.indexOf('<sitemapindex');
  const urlset = head.indexOf('<urlset');
  const kind = index >= 0 && (urlset < 0 || index < urlset) ? 'index' : urlset >= 0 ? 'urlset' : 'unknown';
  if (kind === 'unknown') return { kind, locs: [] };
  const locs: string[] = [];
  const lower = text.toLowerCase();
  let pos = 0;
  while (locs.length < max) {
    const open = lower.indexOf('<loc', pos);
    if (open < 0) break;
    const after = lower[open + 4];
    const gt = lower.indexOf('>', open);
    if (gt < 0) break;
    pos = gt + 1;
    if (after !== '>' && after !== ' ' && after !== '\t' && after !== '\n' && after !== '\r') continue;
    const close = lower.indexOf('</loc>', pos);
    if (close < 0) break;
    let value = text.slice(pos, close).trim();
    pos = close + 6;
    if (value.startsWith('<![CDATA[') && value.endsWith(']]>')) value = value.slice(9, -3).trim();
    else value = decodeXml(value);
    if (/^https?:\/\//i.test(value) && value.length <= 8192) locs.push(value);
  }
  return { kind, locs };
}
