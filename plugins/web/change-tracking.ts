/**
 * Change tracking (issue 27 `changeTracking` format): the page's markdown against the last
 * snapshot the same key took of the same URL (and tag), kept in the service's page store, a
 * git-style unified diff when it changed, and in json mode the fields a model extracted, compared
 * with the snapshot's own extraction field by field.
 */
import type { PageStore } from '../../core/sdk.js';

/** One field's values in json mode. */
export interface FieldChange {
  previous: unknown;
  current: unknown;
}

/** The `changeTracking` field of the answer. */
export interface ChangeTrackingResult {
  previousScrapeAt: string | null;
  changeStatus: 'new' | 'same' | 'changed' | 'removed';
  visibility: 'visible' | 'hidden';
  diff?: string;
  json?: Record<string, FieldChange>;
}

/** json mode: how to extract fields from the markdown, and what identifies the request. */
export interface JsonTracking {
  /** A hash of the schema and prompt: only extractions made with the same ones are compared. */
  spec: string;
  /** Asks the model for the fields of `markdown` (throws what the extraction lane throws). */
  extract(markdown: string): Promise<Record<string, unknown>>;
}

/** What a snapshot keeps of an extraction. */
interface StoredExtraction {
  spec: string;
  data: Record<string, unknown>;
}

/** What the comparison found, and whether the model was asked (the call is charged for it). */
export interface TrackedChange {
  result: ChangeTrackingResult;
  extracted: boolean;
}

/**
 * Compares `markdown` with the last snapshot and records the new one. A page that now answers
 * 404 or 410 is `removed` and its snapshot forgotten, so its return later counts as new. In json
 * mode the model extracts the fields first — unless the markdown is the snapshot's own and the
 * snapshot already holds an extraction made with the same schema and prompt — so a failed
 * extraction leaves the snapshot as it was and the next call compares against the same one.
 */
export async function trackChange(
  store: PageStore,
  who: { owner: string; url: string; tag: string; retentionMs: number },
  page: { markdown: string; status: number },
  modes: { diff: boolean; json?: JsonTracking } = { diff: true },
): Promise<TrackedChange> {
  // A snapshot past the retention setting is as good as deleted (the sweep may not have run yet).
  const before = await store.snapshotGet(who.owner, who.url, who.tag, who.retentionMs);
  const previousScrapeAt = before ? before.takenAt.toISOString() : null;
  if (page.status === 404 || page.status === 410) {
    if (before) await store.snapshotDelete(who.owner, who.url, who.tag);
    return { result: { previousScrapeAt, changeStatus: before ? 'removed' : 'new', visibility: 'visible' }, extracted: false };
  }
  const same = before?.content === page.markdown;
  const earlier = parseExtraction(before?.extracted);
  let stored = same ? before?.extracted : undefined;
  let json: Record<string, FieldChange> | undefined;
  let extracted = false;
  if (modes.json) {
    const comparable = earlier?.spec === modes.json.spec ? earlier : undefined;
    let current: Record<string, unknown>;
    if (same && comparable) current = comparable.data;
    else {
      current = await modes.json.extract(page.markdown);
      extracted = true;
    }
    stored = JSON.stringify({ spec: modes.json.spec, data: current } satisfies StoredExtraction);
    json = fieldChanges(comparable?.data, current);
  }
  await store.snapshotPut(who.owner, who.url, who.tag, page.markdown, stored);
  const result: ChangeTrackingResult = { previousScrapeAt, changeStatus: !before ? 'new' : same ? 'same' : 'changed', visibility: 'visible' };
  if (result.changeStatus === 'changed' && modes.diff) result.diff = unifiedDiff(before!.content, page.markdown);
  if (json) result.json = json;
  return { result, extracted };
}

function parseExtraction(text: string | undefined): StoredExtraction | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as StoredExtraction;
    return typeof v?.spec === 'string' && v.data && typeof v.data === 'object' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The top-level fields whose values differ, each as `{ previous, current }` (null for a field
 * one side lacks); every field when there is nothing to compare with.
 */
export function fieldChanges(previous: Record<string, unknown> | undefined, current: Record<string, unknown>): Record<string, FieldChange> {
  const out: Record<string, FieldChange> = {};
  const keys = [...new Set([...Object.keys(current), ...Object.keys(previous ?? {})])];
  for (const k of keys) {
    const was = previous && k in previous ? previous[k] : null;
    const now = k in current ? current[k] : null;
    if (!previous || canonical(was) !== canonical(now)) out[k] = { previous: was ?? null, current: now ?? null };
  }
  return out;
}

/** JSON text with object keys sorted, so two values compare equal whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/** Lines beyond this many (after the common start and end) are diffed as one replaced block. */
const MAX_DIFF_LINES = 3000;
/** Unchanged lines shown around each change, as git does. */
const CONTEXT = 3;

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

/** A git-style unified diff of two texts (`--- previous` / `+++ current`, `@@` hunks, 3 lines of context). */
export function unifiedDiff(previous: string, current: string): string {
  const a = previous.split('\n');
  const b = current.split('\n');
  const ops = lineOps(a, b);
  const out = ['--- previous', '+++ current'];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.kind === ' ') {
      i++;
      continue;
    }
    // A hunk: from CONTEXT lines before this change to CONTEXT after the last change close to it.
    let start = i;
    for (let c = 0; c < CONTEXT && start > 0 && ops[start - 1]!.kind === ' '; c++) start--;
    let end = i;
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++;
      let gap = 0;
      while (end + gap < ops.length && ops[end + gap]!.kind === ' ') gap++;
      if (end + gap >= ops.length || gap > 2 * CONTEXT) {
        end = Math.min(ops.length, end + Math.min(gap, CONTEXT));
        break;
      }
      end += gap;
    }
    const hunk = ops.slice(start, end);
    const aLines = hunk.filter((o) => o.kind !== '+').length;
    const bLines = hunk.filter((o) => o.kind !== '-').length;
    const aStart = aLines ? hunk.find((o) => o.kind !== '+')!.a + 1 : (hunk[0]?.a ?? 0);
    const bStart = bLines ? hunk.find((o) => o.kind !== '-')!.b + 1 : (hunk[0]?.b ?? 0);
    out.push(`@@ -${aStart},${aLines} +${bStart},${bLines} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    i = end;
  }
  return out.join('\n');
}

/** The edit script between two line lists: common start and end kept, the middle by longest common subsequence. */
function lineOps(a: string[], b: string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const ops: Op[] = [];
  for (let k = 0; k < pre; k++) ops.push({ kind: ' ', line: a[k]!, a: k, b: k });
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  if (am.length > MAX_DIFF_LINES || bm.length > MAX_DIFF_LINES || am.length * bm.length > 4_000_000) {
    am.forEach((line, k) => ops.push({ kind: '-', line, a: pre + k, b: pre }));
    bm.forEach((line, k) => ops.push({ kind: '+', line, a: pre + am.length, b: pre + k }));
  } else {
    // lcs[i][j]: length of the longest common subsequence of am[i..] and bm[j..].
    const w = bm.length + 1;
    const lcs = new Uint16Array((am.length + 1) * w);
    for (let x = am.length - 1; x >= 0; x--) {
      for (let y = bm.length - 1; y >= 0; y--) {
        lcs[x * w + y] = am[x] === bm[y] ? lcs[(x + 1) * w + y + 1]! + 1 : Math.max(lcs[(x + 1) * w + y]!, lcs[x * w + y + 1]!);
      }
    }
    let x = 0;
    let y = 0;
    while (x < am.length || y < bm.length) {
      if (x < am.length && y < bm.length && am[x] === bm[y]) {
        ops.push({ kind: ' ', line: am[x]!, a: pre + x, b: pre + y });
        x++;
        y++;
      } else if (x < am.length && (y >= bm.length || lcs[(x + 1) * w + y]! >= lcs[x * w + y + 1]!)) {
        // Removals before additions, as git shows a replaced line.
        ops.push({ kind: '-', line: am[x]!, a: pre + x, b: pre + y });
        x++;
      } else {
        ops.push({ kind: '+', line: bm[y]!, a: pre + x, b: pre + y });
        y++;
      }
    }
  }
  for (let k = 0; k < suf; k++) ops.push({ kind: ' ', line: a[a.length - suf + k]!, a: a.length - suf + k, b: b.length - suf + k });
  return ops;
}
