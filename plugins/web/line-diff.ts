/**
 * The line diff behind `changeTracking.diff` (issue 27), bounded (issue 24): one key controls
 * both snapshots of its own page, so the comparison must cost at most a fixed amount whatever the
 * two texts are. Lines are interned to integers (each line hashed once, then compared as numbers),
 * the common start and end are set aside, and the middle is aligned by Myers' O((N+M)·D) method,
 * stopped after `maxWork` steps; past that the middle is answered as one removed and one added
 * block, and the diff says so in a last `\` line (the form git uses for its own remarks).
 *
 * The alignment is the one the earlier quadratic LCS table gave, so answers do not change: from
 * the start, a matching line is kept, otherwise a removal is preferred whenever it still lies on a
 * shortest edit script, else an addition. Myers is run from the end backwards, keeping each
 * step's frontier, which tells for any point how many edits it is from the end; the forward walk
 * asks it at each choice.
 */

/** Steps of the alignment (diagonals visited and lines matched) before the diff is made coarse. */
export const MAX_DIFF_WORK = 4_000_000;
/** Unchanged lines shown around each change, as git does. */
const CONTEXT = 3;
/** The last line of a diff whose middle was not aligned line by line. */
export const COARSE_NOTE = '\\ Too many changes to align line by line: the changed region is shown as one removed and one added block.';

/** One line of the edit script: kept (' '), removed ('-') or added ('+'), with its index in the previous (`a`) and current (`b`) lines. */
export interface Edit {
  kind: ' ' | '-' | '+';
  a: number;
  b: number;
}

/** The edit script, whether its middle was given up on, and the steps spent. */
export interface LineEdits {
  edits: Edit[];
  coarse: boolean;
  work: number;
}

/** A git-style unified diff of two texts (`--- previous` / `+++ current`, `@@` hunks, 3 lines of context). */
export function unifiedDiff(previous: string, current: string, maxWork = MAX_DIFF_WORK): string {
  const a = previous.split('\n');
  const b = current.split('\n');
  const { edits, coarse } = lineEdits(a, b, maxWork);
  const out = ['--- previous', '+++ current'];
  let i = 0;
  while (i < edits.length) {
    if (edits[i]!.kind === ' ') {
      i++;
      continue;
    }
    // A hunk: from CONTEXT lines before this change to CONTEXT after the last change close to it.
    let start = i;
    for (let c = 0; c < CONTEXT && start > 0 && edits[start - 1]!.kind === ' '; c++) start--;
    let end = i;
    for (;;) {
      while (end < edits.length && edits[end]!.kind !== ' ') end++;
      let gap = 0;
      while (end + gap < edits.length && edits[end + gap]!.kind === ' ') gap++;
      if (end + gap >= edits.length || gap > 2 * CONTEXT) {
        end = Math.min(edits.length, end + Math.min(gap, CONTEXT));
        break;
      }
      end += gap;
    }
    const hunk = edits.slice(start, end);
    const aLines = hunk.filter((o) => o.kind !== '+').length;
    const bLines = hunk.filter((o) => o.kind !== '-').length;
    const aStart = aLines ? hunk.find((o) => o.kind !== '+')!.a + 1 : (hunk[0]?.a ?? 0);
    const bStart = bLines ? hunk.find((o) => o.kind !== '-')!.b + 1 : (hunk[0]?.b ?? 0);
    out.push(`@@ -${aStart},${aLines} +${bStart},${bLines} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.kind === '+' ? b[o.b] : a[o.a]}`);
    i = end;
  }
  if (coarse) out.push(COARSE_NOTE);
  return out.join('\n');
}

/** The edit script between two line lists, within `maxWork` steps of alignment. */
export function lineEdits(a: readonly string[], b: readonly string[], maxWork = MAX_DIFF_WORK): LineEdits {
  const [ia, ib] = intern(a, b);
  let pre = 0;
  while (pre < ia.length && pre < ib.length && ia[pre] === ib[pre]) pre++;
  let suf = 0;
  while (suf < ia.length - pre && suf < ib.length - pre && ia[ia.length - 1 - suf] === ib[ib.length - 1 - suf]) suf++;
  const edits: Edit[] = [];
  for (let k = 0; k < pre; k++) edits.push({ kind: ' ', a: k, b: k });
  const am = ia.subarray(pre, ia.length - suf);
  const bm = ib.subarray(pre, ib.length - suf);
  const middle = alignMiddle(am, bm, maxWork);
  if (middle.path) {
    for (const e of middle.path) edits.push({ kind: e.kind, a: pre + e.a, b: pre + e.b });
  } else {
    for (let k = 0; k < am.length; k++) edits.push({ kind: '-', a: pre + k, b: pre });
    for (let k = 0; k < bm.length; k++) edits.push({ kind: '+', a: pre + am.length, b: pre + k });
  }
  for (let k = 0; k < suf; k++) edits.push({ kind: ' ', a: ia.length - suf + k, b: ib.length - suf + k });
  return { edits, coarse: !middle.path, work: middle.work };
}

/** Each distinct line as a small integer, so lines are hashed once and compared as numbers. */
function intern(a: readonly string[], b: readonly string[]): [Int32Array, Int32Array] {
  const ids = new Map<string, number>();
  const of = (lines: readonly string[]) =>
    Int32Array.from(lines, (line) => {
      let id = ids.get(line);
      if (id === undefined) ids.set(line, (id = ids.size));
      return id;
    });
  return [of(a), of(b)];
}

/**
 * The middle's edit script (indices relative to it), or no path when aligning it would take more
 * than `maxWork` steps.
 */
function alignMiddle(a: Int32Array, b: Int32Array, maxWork: number): { path?: Edit[]; work: number } {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) {
    const path: Edit[] = [];
    for (let x = 0; x < n; x++) path.push({ kind: '-', a: x, b: 0 });
    for (let y = 0; y < m; y++) path.push({ kind: '+', a: 0, b: y });
    return { path, work: 0 };
  }
  const back = frontiers(a, b, maxWork);
  if (!back.fronts) return { work: back.work };
  const fronts = back.fronts;
  const lows = back.lows;
  // Whether (x, y) is at most d edits from the end: in the backward run, (n-x, m-y) lies on
  // diagonal k at or before that diagonal's frontier after d steps (or d-1, whichever has k's parity).
  const near = (x: number, y: number, d: number): boolean => {
    const xr = n - x;
    const k = xr - (m - y);
    const dd = (d - k) & 1 ? d - 1 : d;
    if (dd < 0) return false;
    const i = k - lows[dd]!;
    const front = fronts[dd]!;
    if (i < 0 || i >> 1 >= front.length) return false;
    return xr <= front[i >> 1]!;
  };
  const path: Edit[] = [];
  let x = 0;
  let y = 0;
  let left = fronts.length - 1;
  while (x < n || y < m) {
    if (x < n && y < m && a[x] === b[y]) {
      path.push({ kind: ' ', a: x, b: y });
      x++;
      y++;
    } else if (x < n && (y >= m || near(x + 1, y, left - 1))) {
      // Removals before additions, as git shows a replaced line.
      path.push({ kind: '-', a: x, b: y });
      x++;
      left--;
    } else {
      path.push({ kind: '+', a: x, b: y });
      y++;
      left--;
    }
  }
  return { path, work: back.work };
}

/**
 * Myers' greedy search run from the end of both lists towards their start. After step d,
 * `fronts[d][i]` is, for diagonal k = lows[d] + 2i (k = x - y counted from the end), the furthest
 * x reachable with at most d edits (-1: none); the search stops at the start, or gives up (no
 * fronts) past `maxWork` steps.
 */
function frontiers(a: Int32Array, b: Int32Array, maxWork: number): { fronts?: Int32Array[]; lows: number[]; work: number } {
  const n = a.length;
  const m = b.length;
  // v[k + m + 1]: the frontier of diagonal k so far (one spare slot each side for k ± 1).
  const v = new Int32Array(n + m + 3).fill(-1);
  const fronts: Int32Array[] = [];
  const lows: number[] = [];
  let work = 0;
  for (let d = 0; ; d++) {
    let lo = Math.max(-d, -m);
    if ((lo + d) & 1) lo++;
    let hi = Math.min(d, n);
    if ((hi + d) & 1) hi--;
    let done = false;
    for (let k = lo; k <= hi; k += 2) {
      work++;
      const at = k + m + 1;
      let x = d === 0 ? 0 : -1;
      if (d > 0) {
        // From diagonal k+1 by one more line of `b`, kept inside the box (y ≤ m).
        const down = v[at + 1]!;
        if (down >= 0) x = Math.min(down, m + k);
        // From diagonal k-1 by one more line of `a` (x ≤ n).
        const right = v[at - 1]!;
        if (right >= 0 && Math.min(right + 1, n) > x) x = Math.min(right + 1, n);
        // What d-2 edits reached stays reachable with d.
        if (v[at]! > x) x = v[at]!;
      }
      if (x < 0) continue;
      let y = x - k;
      while (x < n && y < m && a[n - 1 - x] === b[m - 1 - y]) {
        x++;
        y++;
        work++;
      }
      v[at] = x;
      if (x >= n && y >= m) {
        // The start is reached: this step's frontier is not asked for (only those before it are).
        done = true;
        break;
      }
      // Checked per diagonal, so one step of d overruns the bound by one snake (≤ n lines) at most.
      if (work > maxWork) return { lows, work };
    }
    const front = new Int32Array(hi >= lo ? ((hi - lo) >> 1) + 1 : 0);
    for (let i = 0; i < front.length; i++) front[i] = v[lo + 2 * i + m + 1]!;
    fronts.push(front);
    lows.push(lo);
    if (done) return { fronts, lows, work };
  }
}
