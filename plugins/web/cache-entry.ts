/**
 * What the scrape cache keeps beside an answer (issue 27 audit, findings 2 and 4): when the
 * earliest temporary file link in it (a screenshot, an action's capture, a document's file)
 * stops working, so a hit never hands out a dead link; and how many pages doc_text read by OCR to
 * make it, so a hit costs what the miss did ("cached answers cost the same").
 */

/** A stored entry. */
export interface CacheEntry {
  /** Marks the shape, so a value of another shape is never taken for an answer. */
  entry: 2;
  answer: unknown;
  /** ISO 8601: the earliest file link's expiry, when the answer holds any. */
  linksExpireAt?: string;
  /** Pages read by OCR to make the answer (charged again on each hit). */
  ocrPages?: number;
}

/**
 * A hit whose links would stop working this soon is not served: the caller could not fetch
 * them in time (a page fetched again has fresh ones).
 */
export const LINK_MARGIN_MS = 60_000;

/** The entry for `answer`, made with the files that expire at `expiries` and `ocrPages` OCR pages. */
export function cacheEntry(answer: unknown, expiries: Date[], ocrPages: number): CacheEntry {
  const earliest = expiries.length ? Math.min(...expiries.map((d) => d.getTime())) : undefined;
  return { entry: 2, answer, ...(earliest !== undefined ? { linksExpireAt: new Date(earliest).toISOString() } : {}), ...(ocrPages > 0 ? { ocrPages } : {}) };
}

/** The stored entry if it can be served now, else undefined (another shape, or links about to expire). */
export function servable(value: unknown, now = Date.now()): CacheEntry | undefined {
  const e = value as Partial<CacheEntry> | null;
  if (!e || typeof e !== 'object' || e.entry !== 2 || !e.answer) return undefined;
  if (e.linksExpireAt !== undefined && !(Date.parse(e.linksExpireAt) - now > LINK_MARGIN_MS)) return undefined;
  return e as CacheEntry;
}
