/**
 * The benchmark scorer behind `bench:extraction-f1` (bench/f1-score.ts): hand-counted cases of the
 * token-shingle rules it must share with the public article-extraction benchmark, so a figure it
 * prints can be set beside the ones that benchmark publishes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pageCounts, scores, tokens } from '../bench/f1-score.js';

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} is not ${expected}`);

describe('extraction F1 scorer', () => {
  it('tokens are runs of letters, digits and underscores of any script, case kept', () => {
    assert.deepEqual(tokens("Don't stop_now: 3.5 cafés, Straße — Привет 東京!"), ['Don', 't', 'stop_now', '3', '5', 'cafés', 'Straße', 'Привет', '東京']);
  });

  it('a page is counted in 4-token shingles, each share divided by their sum', () => {
    // truth shingles: [a b c d], [b c d e]; predicted: [a b c d], [b c d x] → 1 shared, 1 extra, 1 missing.
    const c = pageCounts('a b c d e', 'a b c d x');
    close(c.tp, 1 / 3);
    close(c.fp, 1 / 3);
    close(c.fn, 1 / 3);
    const s = scores([c]);
    close(s.precision, 0.5);
    close(s.recall, 0.5);
  });

  it('a repeated shingle counts as often as it occurs on each side', () => {
    // truth: [w x y z], [x y z w], [y z w x], [z w x y], [w x y z] (twice); predicted: [w x y z]
    // once → 1 shared, 4 missing, nothing extra.
    const c = pageCounts('w x y z. w x y z', 'w x y z');
    assert.equal(c.fp, 0);
    close(c.tp, 1 / 5);
    close(c.fn, 4 / 5);
  });

  it('a text shorter than a shingle is one shingle of all its tokens', () => {
    close(scores([pageCounts('Breaking news', 'Breaking, news!')]).f1, 1);
    close(scores([pageCounts('Breaking news', 'Breaking')]).f1, 0);
  });

  it('precision and recall are means over pages and F1 is their harmonic mean', () => {
    const perfect = pageCounts('one two three four five', 'one two three four five');
    const half = pageCounts('a b c d e', 'a b c d x');
    // The second page predicted nothing: it is left out of precision and counts 0 in recall.
    const empty = pageCounts('p q r s t', '');
    const s = scores([perfect, half, empty]);
    close(s.precision, (1 + 0.5) / 2);
    close(s.recall, (1 + 0.5 + 0) / 3);
    close(s.f1, (2 * 0.75 * 0.5) / (0.75 + 0.5));
  });

  it('extra words around the article lower precision only', () => {
    const truth = 'The council approved the new budget on Tuesday after a long debate.';
    const s = scores([pageCounts(truth, `Home News Sport Weather ${truth} Share this article Subscribe now`)]);
    close(s.recall, 1);
    assert.ok(s.precision < 1);
  });
});
