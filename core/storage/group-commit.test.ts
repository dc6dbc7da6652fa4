/** Group commit: one write per batch, each caller answered with its own result, drain never starved. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { GroupCommitter } from './group-commit.js';
import type { Queryable } from './db.js';

const db: Queryable = { query: async () => [] };

describe('GroupCommitter', () => {
  it('writes concurrent items in shared batches and answers each with its own result', async () => {
    const batches: number[][] = [];
    const gc = new GroupCommitter<number, number>(db, async (_q, batch) => {
      batches.push([...batch]);
      await sleep(5);
      return batch.map((n) => n * 2);
    });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => gc.submit(i)));
    assert.deepEqual(results, Array.from({ length: 50 }, (_, i) => i * 2));
    assert.ok(batches.length < 50, `50 items took ${batches.length} writes`);
    assert.deepEqual(batches.flat().sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
  });

  it('a failed write rejects its own callers only; later batches go on', async () => {
    let fail = true;
    const gc = new GroupCommitter<number>(db, async () => {
      if (fail) {
        fail = false;
        throw new Error('disk full');
      }
    });
    await assert.rejects(gc.submit(1), /disk full/);
    await gc.submit(2);
  });

  it('drain waits for what was submitted before it, not for items that keep arriving', async () => {
    const written = new Set<number>();
    const gc = new GroupCommitter<number>(db, async (_q, batch) => {
      await sleep(10);
      for (const n of batch) written.add(n);
    });
    let next = 0;
    let running = true;
    const feeder = (async () => {
      while (running) {
        void gc.submit(next++);
        await sleep(1);
      }
    })();
    await sleep(30);
    const before = next;
    await gc.drain();
    const stillFeeding = running;
    for (let i = 0; i < before; i++) assert.ok(written.has(i), `item ${i} was submitted before drain but is not written`);
    running = false;
    await feeder;
    assert.ok(stillFeeding);
    assert.ok(next > before, 'items kept arriving while drain waited');
    await gc.drain();
    assert.equal(written.size, next);
  });
});
