/** The uid pool's queue: bounded, abortable, and served key by key rather than first come first served. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UidPool } from './uid-pool.js';

describe('UidPool', () => {
  it('a freed slot goes to the waiting key holding the fewest, so one key\'s backlog does not hold another key\'s first run', async () => {
    const pool = new UidPool(1, 5000, 10);
    const first = await pool.acquire(undefined, 'flood');
    assert.equal(first.uid, 5000);
    const order: string[] = [];
    const wait = (owner: string, name: string) =>
      pool.acquire(undefined, owner).then((lease) => {
        order.push(name);
        queueMicrotask(() => lease.release());
      });
    const all = [wait('flood', 'flood 2'), wait('flood', 'flood 3'), wait('other', 'other 1')];
    first.release();
    await Promise.all(all);
    assert.deepEqual(order, ['other 1', 'flood 2', 'flood 3']);
    assert.equal(pool.leased, 0);
  });

  it('an aborted waiter leaves the queue; past the queue\'s bound the answer is BUSY', async () => {
    const pool = new UidPool(1, null, 1);
    const held = await pool.acquire(undefined, 'a');
    const ctl = new AbortController();
    const aborted = pool.acquire(ctl.signal, 'b');
    await assert.rejects(pool.acquire(undefined, 'c'), { code: 'BUSY' });
    ctl.abort(new Error('gone'));
    await assert.rejects(aborted, /gone/);
    const next = pool.acquire(undefined, 'c');
    held.release();
    assert.equal((await next).uid, null);
    assert.equal(pool.waitingCount, 0);
  });
});
