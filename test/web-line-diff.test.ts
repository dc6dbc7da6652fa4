/**
 * The bounded line diff of change tracking (plugins/web/line-diff.ts): the same answers as the
 * quadratic longest-common-subsequence table it replaced (kept below as the reference), on many
 * seeded random pairs; and on pairs built to be expensive, a bounded amount of work and a diff
 * that says it was made coarse.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { COARSE_NOTE, MAX_DIFF_WORK, lineEdits, unifiedDiff } from '../plugins/web/line-diff.js';

/** The earlier diff: the full LCS table of the middle, walked from the start preferring a kept line, then a removal. */
function referenceDiff(previous: string, current: string): string {
  const a = previous.split('\n');
  const b = current.split('\n');
  type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };
  const ops: Op[] = [];
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  for (let k = 0; k < pre; k++) ops.push({ kind: ' ', line: a[k]!, a: k, b: k });
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  const w = bm.length + 1;
  const lcs = new Uint32Array((am.length + 1) * w);
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
      ops.push({ kind: '-', line: am[x]!, a: pre + x, b: pre + y });
      x++;
    } else {
      ops.push({ kind: '+', line: bm[y]!, a: pre + x, b: pre + y });
      y++;
    }
  }
  for (let k = 0; k < suf; k++) ops.push({ kind: ' ', line: a[a.length - suf + k]!, a: a.length - suf + k, b: b.length - suf + k });
  const out = ['--- previous', '+++ current'];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.kind === ' ') {
      i++;
      continue;
    }
    let start = i;
    for (let c = 0; c < 3 && start > 0 && ops[start - 1]!.kind === ' '; c++) start--;
    let end = i;
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++;
      let gap = 0;
      while (end + gap < ops.length && ops[end + gap]!.kind === ' ') gap++;
      if (end + gap >= ops.length || gap > 6) {
        end = Math.min(ops.length, end + Math.min(gap, 3));
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

/** A small seeded generator (the same cases on every run). */
function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    return s / 0x80000000;
  };
}

describe('change-tracking line diff', () => {
  it('answers what the LCS table answered, on 5,000 random pairs of few distinct lines', () => {
    const rnd = seeded(20261128);
    for (let c = 0; c < 5000; c++) {
      const kinds = 1 + Math.floor(rnd() * 6);
      const line = () => (rnd() < 0.1 ? '' : `line ${Math.floor(rnd() * kinds)}`);
      const a = Array.from({ length: Math.floor(rnd() * 30) }, line).join('\n');
      const b = Array.from({ length: Math.floor(rnd() * 30) }, line).join('\n');
      assert.equal(unifiedDiff(a, b), referenceDiff(a, b), JSON.stringify({ a, b }));
    }
  });

  it('answers what the LCS table answered on edited pages of a few hundred lines', () => {
    const rnd = seeded(7);
    for (let c = 0; c < 150; c++) {
      const kinds = 2 + Math.floor(rnd() * 60);
      const base = Array.from({ length: Math.floor(rnd() * 400) }, () => (rnd() < 0.3 ? '' : `para ${Math.floor(rnd() * kinds)}`));
      // Some lines replaced, some dropped, some inserted: a page's next version.
      const next = base.flatMap((l) => (rnd() < 0.04 ? [] : rnd() < 0.05 ? [`new ${Math.floor(rnd() * kinds)}`] : rnd() < 0.03 ? [l, `added ${c}`] : [l]));
      const a = base.join('\n');
      const b = next.join('\n');
      assert.equal(unifiedDiff(a, b), referenceDiff(a, b));
    }
  });

  it('shows a small change as git does, without the coarse note', () => {
    const diff = unifiedDiff('a\nb\nc\nd\ne\nf\ng\nh', 'a\nb\nc\nd\nE\nf\ng\nh\ni');
    assert.equal(diff, ['--- previous', '+++ current', '@@ -2,7 +2,8 @@', ' b', ' c', ' d', '-e', '+E', ' f', ' g', ' h', '+i'].join('\n'));
  });

  it('stops a costly alignment within its bound and says the diff is coarse', () => {
    // The audit's pairs: distinct lines sharing a long start, so every comparison used to read it.
    for (const [lines, width] of [
      [2000, 100],
      [2000, 2000],
      [5000, 100],
      [20000, 40],
    ] as const) {
      const page = (tag: string) => Array.from({ length: lines }, (_, i) => `${'p'.repeat(width)} ${tag}${i}`);
      const a = page('a');
      const b = page('b');
      const r = lineEdits(a, b);
      assert.equal(r.coarse, true);
      // One diagonal's snake past the bound at most.
      assert.ok(r.work <= MAX_DIFF_WORK + lines + 1, `${r.work} steps for ${lines} lines`);
      const diff = unifiedDiff(a.join('\n'), b.join('\n'));
      const body = diff.split('\n');
      assert.equal(body.at(-1), COARSE_NOTE);
      assert.equal(body[2], `@@ -1,${lines} +1,${lines} @@`);
      assert.equal(body.filter((l) => l.startsWith('-') && !l.startsWith('---')).length, lines);
      assert.equal(body.filter((l) => l.startsWith('+') && !l.startsWith('+++')).length, lines);
    }
  });

  it('keeps the common start and end out of the coarse block', () => {
    const same = Array.from({ length: 10 }, (_, i) => `same ${i}`);
    const a = [...same, ...Array.from({ length: 300 }, (_, i) => `old ${i}`), ...same].join('\n');
    const b = [...same, ...Array.from({ length: 300 }, (_, i) => `new ${i}`), ...same].join('\n');
    const lines = unifiedDiff(a, b, 1000).split('\n');
    assert.equal(lines[2], '@@ -8,306 +8,306 @@');
    assert.deepEqual(lines.slice(3, 6), [' same 7', ' same 8', ' same 9']);
    assert.equal(lines.at(-1), COARSE_NOTE);
    // Within the default bound the same pair is aligned line by line, and matches the reference.
    assert.equal(unifiedDiff(a, b), referenceDiff(a, b));
  });
});
