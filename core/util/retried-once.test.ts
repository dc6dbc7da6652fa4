import { it } from 'node:test';
import assert from 'node:assert/strict';
import { retriedOnce } from './retried-once.js';

it('shares one attempt between concurrent callers and keeps it once it succeeded', async () => {
  let made = 0;
  const get = retriedOnce(async () => ++made);
  assert.deepEqual(await Promise.all([get(), get()]), [1, 1]);
  assert.equal(await get(), 1);
  assert.equal(made, 1);
});

it('forgets a failed attempt: its callers see its error, the next caller tries again', async () => {
  let made = 0;
  const get = retriedOnce(async () => {
    made++;
    if (made === 1) throw new Error('first fails');
    return made;
  });
  const [a, b] = await Promise.allSettled([get(), get()]);
  assert.equal(a.status === 'rejected' && (a.reason as Error).message, 'first fails');
  assert.equal(b.status === 'rejected' && (b.reason as Error).message, 'first fails');
  assert.equal(await get(), 2);
  assert.equal(await get(), 2);
  assert.equal(made, 2);
});
