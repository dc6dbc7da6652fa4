/** The fair queue of the JavaScript pool (issue 18, item 9) and the tool gates (issue 24): who gets the next slot, and when to surge. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairQueue } from './fair-queue.js';

const job = (owner: string, n: number) => ({ owner, n });

test('a free worker goes to the earliest run of the owner holding the fewest workers', () => {
  const q = new FairQueue<{ owner: string; n: number }>();
  for (const j of [job('a', 1), job('a', 2), job('a', 3), job('b', 4), job('c', 5), job('b', 6)]) q.push(j);
  assert.equal(q.take()?.n, 1); // nobody holds anything: first come first served
  assert.equal(q.take()?.n, 4); // a holds one now, b none
  assert.equal(q.take()?.n, 5);
  assert.equal(q.take()?.n, 2); // everyone holds one: the earliest waiting run
  q.done('b');
  assert.equal(q.take()?.n, 6); // b is back to none
  assert.deepEqual([q.held('a'), q.held('b'), q.held('c')], [2, 1, 1]);
  assert.equal(q.length, 1);
});

test('runs without an owner keep first-come-first-served order', () => {
  const q = new FairQueue<{ owner: string; n: number }>();
  for (let i = 0; i < 5; i++) q.push(job('', i));
  assert.deepEqual([0, 1, 2, 3, 4].map(() => q.take()?.n), [0, 1, 2, 3, 4]);
});

test('an owner waiting below its share while another holds more is starved; otherwise not', () => {
  const q = new FairQueue<{ owner: string; n: number }>();
  q.push(job('a', 1));
  q.push(job('a', 2));
  q.take();
  q.take();
  assert.equal(q.starved(2), 0, 'a alone may hold both workers');
  q.push(job('a', 3));
  assert.equal(q.starved(2), 0, 'a waiting for a third worker is no one starving');
  q.push(job('b', 4));
  assert.equal(q.share(2), 1);
  assert.equal(q.starved(2), 1, 'b holds nothing while a holds both of two');
  q.done('a');
  assert.equal(q.starved(2), 0, 'a holds its share now');
  assert.equal(q.take()?.n, 4);
  q.push(job('c', 5));
  assert.equal(q.starved(4), 0, 'three owners, four workers: a and b hold one each, within the share of one');
  assert.equal(q.remove(q.drain()[0]!), false);
});

test('among owners holding equally few, the one served least recently goes first: a newcomer waits for one job at most', () => {
  const q = new FairQueue<{ owner: string; n: number }>();
  for (let i = 1; i <= 4; i++) q.push(job('a', i));
  assert.equal(q.take()?.n, 1); // a's backlog starts on the only slot
  q.push(job('b', 10)); // b arrives behind a's three waiting runs
  q.done('a');
  assert.equal(q.take()?.n, 10, 'a and b both hold nothing: b was never served, a just was');
  q.done('b');
  assert.equal(q.take()?.n, 2);
});
