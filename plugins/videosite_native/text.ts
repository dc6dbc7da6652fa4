/**
 * Reading the site's renderer JSON: text objects (`simpleText` / `runs` / `content`), abbreviated
 * counts ("1.2M subscribers"), relative and absolute dates, durations, and a tolerant walk that
 * finds renderers wherever the current layout nests them (the site moves containers around far
 * more often than it renames the renderers inside them).
 */

/** Any JSON value. */
export type Json = any;

/** The text of a `{ simpleText }`, `{ runs: [{ text }] }` or `{ content }` object, or a string. */
export function textOf(t: Json): string | null {
  if (t === null || t === undefined) return null;
  if (typeof t === 'string') return t;
  if (typeof t.simpleText === 'string') return t.simpleText;
  if (Array.isArray(t.runs)) return t.runs.map((r: Json) => r?.text ?? '').join('');
  if (typeof t.content === 'string') return t.content;
  return null;
}

/** Every object under `key` anywhere in `root`, in document order (not descending into matches). */
export function findAll(root: Json, key: string, limit = Infinity): Json[] {
  const out: Json[] = [];
  const stack: Json[] = [root];
  while (stack.length && out.length < limit) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
      continue;
    }
    if (key in node && node[key] && typeof node[key] === 'object') {
      out.push(node[key]);
      continue;
    }
    const values = Object.values(node);
    for (let i = values.length - 1; i >= 0; i--) stack.push(values[i]);
  }
  return out;
}

/** The first object under `key` in `root`. */
export const findFirst = (root: Json, key: string): Json | undefined => findAll(root, key, 1)[0];

const SCALE: Record<string, number> = { k: 1e3, m: 1e6, b: 1e9, thousand: 1e3, million: 1e6, billion: 1e9 };

/** "1,234 views" → 1234; "1.2M subscribers" → 1200000; "No views" → 0; otherwise null. */
export function countOf(text: string | null | undefined): number | null {
  if (!text) return null;
  const t = text.trim().toLowerCase();
  if (/^no\b/.test(t)) return 0;
  const m = /(\d[\d,.\s]*)\s*(k|m|b|thousand|million|billion)?\b/i.exec(t.replace(/\u00a0/g, ' '));
  if (!m) return null;
  const digits = m[1]!.replace(/[\s,]/g, '');
  const scale = m[2] ? SCALE[m[2].toLowerCase()]! : 1;
  const n = scale === 1 ? Number(digits.replace(/\./g, '')) : Number(digits) * scale;
  return Number.isFinite(n) ? Math.round(n) : null;
}

const UNIT_MS: Record<string, number> = { second: 1e3, minute: 6e4, hour: 36e5, day: 864e5, week: 6048e5, month: 2629746e3, year: 31556952e3 };

/** "3 days ago" (optionally "Streamed … ago", "(edited)") → an ISO date-time relative to `now`; else null. */
export function relativeToIso(text: string | null | undefined, now = Date.now()): string | null {
  const m = /(\d+)\s*(second|minute|hour|day|week|month|year)s?\s+ago/i.exec(text ?? '');
  if (!m) return null;
  return new Date(now - Number(m[1]) * UNIT_MS[m[2]!.toLowerCase()]!).toISOString();
}

/** "Jun 12, 2019", "Premiered on 12 Jun 2019", "Streamed live on Jun 12, 2019", "Premieres Jan 1, 2027" → ISO (UTC midnight); else null. */
export function dateTextToIso(text: string | null | undefined): string | null {
  if (!text) return null;
  const cleaned = text.replace(/^(premiered|premieres|streamed live|started streaming|scheduled for)( on)?\s+/i, '').trim();
  const t = Date.parse(`${cleaned} UTC`);
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
}

/** "12:34" or "1:02:03" → seconds; null when it is not a duration. */
export function durationSeconds(text: string | null | undefined): number | null {
  if (!text || !/^\d+(:\d{1,2}){1,2}$/.test(text.trim())) return null;
  return text.trim().split(':').reduce((acc, p) => acc * 60 + Number(p), 0);
}

/** Seconds → "m:ss" or "h:mm:ss". */
export function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** The largest image of a `{ thumbnails: [...] }` or `{ sources: [...] }` list. */
export function bestImage(t: Json): string | null {
  const list: Json[] = t?.thumbnails ?? t?.sources ?? (Array.isArray(t) ? t : []);
  let best: Json;
  for (const i of list) if (i?.url && (!best || (i.width ?? 0) >= (best.width ?? 0))) best = i;
  if (!best) return null;
  return String(best.url).startsWith('//') ? `https:${best.url}` : String(best.url);
}

/** A site path or URL as an absolute public URL (what callers see, never the configured base). */
export function siteUrl(path: string): string {
  return path.startsWith('http') ? path : `https://www.youtube.com${path.startsWith('/') ? '' : '/'}${path}`;
}

/** The continuation token of the first `continuationItemRenderer` (or `continuationCommand`) in `root`. */
export function continuationOf(root: Json): string | null {
  const item = findAll(root, 'continuationItemRenderer').at(-1);
  const token = item ? findFirst(item, 'continuationCommand')?.token : undefined;
  return typeof token === 'string' && token ? token : null;
}
