/**
 * Change tracking (issue 27 `changeTracking` format): the page's markdown against the last
 * snapshot the same key took of the same URL (and tag), kept in the service's page store, a
 * git-style unified diff when it changed, and in json mode the fields a model extracted, compared
 * with the snapshot's own extraction field by field.
 */
import { UpstreamError, type ComputeEngine, type ComputeOptions, type PageStore } from '../../core/sdk.js';
import type * as DiffWork from './diff-work.js';

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

/** Makes the git-style diff of the previous and the current markdown (off the serving thread). */
export type Differ = (previous: string, current: string) => Promise<string>;

/**
 * The diff in the compute engine's workers: both texts come from the caller's own page, so even
 * bounded (line-diff.ts) it is work no other key's call should wait behind on the serving thread.
 * Registering the module again returns the same handle, so this costs a map lookup per call.
 */
export function computeDiffer(compute: ComputeEngine, opts: ComputeOptions): Differ {
  const work = compute.register<typeof DiffWork>(new URL('./diff-work.js', import.meta.url));
  return (previous, current) => work.run('pageDiff', { previous, current }, opts);
}

/** What the comparison found, and whether the model was asked (the call is charged for it). */
export interface TrackedChange {
  result: ChangeTrackingResult;
  extracted: boolean;
}

/**
 * What a snapshot's `extracted` holds when the page was found gone (404 or 410): a removal marker
 * in place of the page, so that a page still gone is `same` and its return `new` (an extraction is
 * always an object with a `spec`, so it never reads as this).
 */
const REMOVED = '{"removed":true}';

/**
 * Throws the free 502 for a page that answered a server error or 429: that answer says nothing
 * about the page, so it is neither compared nor kept (an outage would otherwise read `changed`
 * twice, and a monitor would report it twice).
 */
export function checkTrackable(url: string, status: number): void {
  if (status >= 500 || status === 429) {
    throw new UpstreamError(`Failed to track changes of ${url}: the page answered ${status}; the last snapshot is kept.`);
  }
}

/**
 * Compares `markdown` with the last snapshot and records the new one. A page that now answers
 * 404 or 410 is `removed` and a removal marker replaces its snapshot: while it stays gone it is
 * `same`, and its return is `new` (previousScrapeAt: the last check that found it gone). In json
 * mode the model extracts the fields first — unless the markdown is the snapshot's own and the
 * snapshot already holds an extraction made with the same schema and prompt — so a failed
 * extraction (or diff) leaves the snapshot as it was and the next call compares against the same one.
 */
export async function trackChange(
  store: PageStore,
  who: { owner: string; url: string; tag: string; retentionMs: number },
  page: { markdown: string; status: number },
  modes: { diff?: Differ; json?: JsonTracking },
): Promise<TrackedChange> {
  checkTrackable(who.url, page.status);
  // A snapshot past the retention setting is as good as deleted (the sweep may not have run yet).
  const last = await store.snapshotGet(who.owner, who.url, who.tag, who.retentionMs);
  const previousScrapeAt = last ? last.takenAt.toISOString() : null;
  const gone = last?.extracted === REMOVED;
  if (page.status === 404 || page.status === 410) {
    await store.snapshotPut(who.owner, who.url, who.tag, '', REMOVED);
    return { result: { previousScrapeAt, changeStatus: !last ? 'new' : gone ? 'same' : 'removed', visibility: 'visible' }, extracted: false };
  }
  // A page back after its removal has nothing to be compared with.
  const before = gone ? undefined : last;
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
  const result: ChangeTrackingResult = { previousScrapeAt, changeStatus: !before ? 'new' : same ? 'same' : 'changed', visibility: 'visible' };
  // Before the snapshot moves on, so a diff that fails (its worker stopped) fails the call and
  // the next call is compared with the same snapshot, as with a failed extraction.
  if (result.changeStatus === 'changed' && modes.diff) result.diff = await modes.diff(before!.content, page.markdown);
  await store.snapshotPut(who.owner, who.url, who.tag, page.markdown, stored);
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
