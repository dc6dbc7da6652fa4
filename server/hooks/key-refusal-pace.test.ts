/**
 * The pace's arithmetic on a clock the test moves: which refusal waits how long, what a client
 * that hangs up gives back, the cap on waiting answers, and keys forgotten once their pace is full.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KeyRefusalPace } from './key-refusal-pace.js';

describe('KeyRefusalPace', () => {
  it('answers a burst of the pace at once, then one per 1/perSecond, due one after another', () => {
    let now = 1_000_000;
    const pace = new KeyRefusalPace(2, 64, () => now);
    assert.deepEqual([pace.take('k'), pace.take('k'), pace.take('k'), pace.take('k')], [0, 0, 500, 1000]);
    // Another key has its own pace.
    assert.equal(pace.take('other'), 0);
    now += 1000;
    pace.done('k', false);
    pace.done('k', false);
    // The two waiting ones had the second's refusals; the next is due half a second on.
    assert.equal(pace.take('k'), 500);
  });

  it('a waiting answer whose client hung up gives its refusal back', () => {
    const now = 1_000_000;
    const pace = new KeyRefusalPace(1, 64, () => now);
    assert.equal(pace.take('k'), 0);
    assert.equal(pace.take('k'), 1000);
    pace.done('k', true);
    assert.equal(pace.take('k'), 1000, 'due when the one that left would have been');
  });

  it('past the cap of waiting answers, one goes at once and takes no turn from those waiting', () => {
    const now = 1_000_000;
    const pace = new KeyRefusalPace(1, 2, () => now);
    assert.deepEqual([pace.take('k'), pace.take('k'), pace.take('k'), pace.take('k')], [0, 1000, 2000, 0]);
    pace.done('k', false);
    assert.equal(pace.take('k'), 3000);
  });

  it('forgets a key whose pace is full again and has nothing waiting', () => {
    let now = 1_000_000;
    const pace = new KeyRefusalPace(1, 64, () => now);
    pace.take('a');
    pace.take('b');
    assert.equal(pace.take('b'), 1000);
    now += 20_000;
    pace.take('c');
    assert.equal(pace.size, 2, "'a' is forgotten; 'b' still has an answer waiting");
  });
});
