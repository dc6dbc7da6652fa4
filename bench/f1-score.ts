/**
 * Token-shingle precision, recall and F1 as the public article-extraction benchmark
 * (scrapinghub/article-extraction-benchmark, `evaluate.py`) defines them, written anew here so the
 * project's figures are comparable with the ones that benchmark publishes:
 *
 * - a token is a run of word characters (letters, digits, underscore, any script), case kept;
 * - a text becomes the multiset of its 4-token shingles (a text of 1–3 tokens is one shingle of
 *   all of them; a text with no token has none);
 * - per page, shared shingles are true positives, extra predicted ones false positives, missing
 *   ones false negatives, and the three are divided by their sum so a long article weighs no
 *   more than a short one;
 * - over the pages, precision is the mean over pages that predicted anything, recall the mean
 *   over pages whose truth has anything, and F1 the harmonic mean of those two means (not the
 *   mean of per-page F1s).
 */

/** One page's normalised true-positive, false-positive and false-negative shares. */
export interface PageCounts {
  tp: number;
  fp: number;
  fn: number;
}

export interface Scores {
  precision: number;
  recall: number;
  f1: number;
}

const SHINGLE = 4;
// `\w` of Python's `re` with Unicode: letters and numbers of every script, and `_`.
const TOKEN = /[\p{L}\p{N}_]+/gu;

export function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** Each shingle (its tokens joined by a space, which no token contains) with its count. */
function shingles(text: string): Map<string, number> {
  const toks = tokens(text);
  const out = new Map<string, number>();
  const starts = Math.max(1, toks.length - SHINGLE + 1);
  for (let i = 0; i < starts && toks.length > 0; i++) {
    const key = toks.slice(i, i + SHINGLE).join(' ');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/** How one page's extracted text (`predicted`) matches its ground truth (`truth`). */
export function pageCounts(truth: string, predicted: string): PageCounts {
  const want = shingles(truth);
  const got = shingles(predicted);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [key, n] of got) {
    const m = want.get(key) ?? 0;
    tp += Math.min(n, m);
    fp += Math.max(0, n - m);
  }
  for (const [key, m] of want) fn += Math.max(0, m - (got.get(key) ?? 0));
  const sum = tp + fp + fn;
  return sum > 0 ? { tp: tp / sum, fp: fp / sum, fn: fn / sum } : { tp, fp, fn };
}

function pagePrecision({ tp, fp, fn }: PageCounts): number {
  if (fp === 0 && fn === 0) return 1;
  return tp + fp === 0 ? 0 : tp / (tp + fp);
}

function pageRecall({ tp, fp, fn }: PageCounts): number {
  if (fp === 0 && fn === 0) return 1;
  return tp + fn === 0 ? 0 : tp / (tp + fn);
}

function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

/** The benchmark's figures over a set of pages. */
export function scores(pages: PageCounts[]): Scores {
  const precision = mean(pages.filter((p) => p.tp + p.fp > 0).map(pagePrecision));
  const recall = mean(pages.filter((p) => p.tp + p.fn > 0).map(pageRecall));
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

/** One page's own F1 (for listing the pages where two extractors differ; not part of the mean). */
export function pageF1(p: PageCounts): number {
  const pr = pagePrecision(p);
  const rc = pageRecall(p);
  return pr + rc > 0 ? (2 * pr * rc) / (pr + rc) : 0;
}
