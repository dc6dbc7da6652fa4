/**
 * The PDF threads' turns across keys, with fake threads whose jobs end when the test says: a key
 * that waits below its share while another key holds every thread gets a surge thread at once,
 * which ends once nothing is left for it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { PdfThreadPool } from './thread-pool.js';

/** A stand-in thread: says it is ready, records each job posted, answers when told. */
class FakeThread extends EventEmitter {
  jobs: { id: number; op: string }[] = [];
  terminated = false;
  constructor() {
    super();
    queueMicrotask(() => this.emit('message', { id: 0 }));
  }
  postMessage(job: { id: number; op: string }): void {
    this.jobs.push(job);
  }
  finish(value: unknown = 1): void {
    const job = this.jobs.at(-1)!;
    this.emit('message', { id: job.id, value });
  }
  refuse(message = 'files[0] is refused'): void {
    const job = this.jobs.at(-1)!;
    this.emit('message', { id: job.id, error: { kind: 'input', message } });
  }
  ref(): void {}
  unref(): void {}
  async terminate(): Promise<number> {
    this.terminated = true;
    return 0;
  }
}

const settings = { threads: 2, queueLimit: 8, timeoutMs: 60_000, memoryMb: 64, decodeLimitBytes: 1e6, surgeIdleMs: 0 };
const tick = () => new Promise((r) => setImmediate(r));

describe('PDF thread pool', () => {
  it('a key waiting while another holds every thread gets a surge thread, which ends when it is done', async () => {
    const threads: FakeThread[] = [];
    const pool = new PdfThreadPool(settings, { warn() {} }, () => {
      const t = new FakeThread();
      threads.push(t);
      return t as unknown as Worker;
    });
    const done: string[] = [];
    const a1 = pool.run('pageCount', { pdf: new Uint8Array(1), label: 'a' } as never, { owner: 'flood' }).then(() => done.push('a1'));
    const a2 = pool.run('pageCount', { pdf: new Uint8Array(1), label: 'a' } as never, { owner: 'flood' }).then(() => done.push('a2'));
    await tick();
    assert.equal(threads.length, 2);
    assert.deepEqual(threads.map((t) => t.jobs.length), [1, 1], 'the flooding key holds both threads');
    const b = pool.run('pageCount', { pdf: new Uint8Array(1), label: 'b' } as never, { owner: 'other' }).then(() => done.push('b'));
    await tick();
    assert.equal(threads.length, 3, 'a surge thread started for the waiting key');
    assert.equal(threads[2]!.jobs.length, 1);
    threads[2]!.finish();
    await b;
    assert.deepEqual(done, ['b'], 'served while the other key\'s jobs still run');
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(threads[2]!.terminated, true, 'the surge thread ended once idle (SURGE idle time 0 here)');
    threads[0]!.finish();
    threads[1]!.finish();
    await Promise.all([a1, a2]);
    assert.equal(threads.filter((t) => !t.terminated).length, 2);
    await pool.close();
  });

  it('an idle surge thread is kept for a while and serves the waiting key\'s next job', async () => {
    const threads: FakeThread[] = [];
    const pool = new PdfThreadPool({ ...settings, surgeIdleMs: 60_000 }, { warn() {} }, () => {
      const t = new FakeThread();
      threads.push(t);
      return t as unknown as Worker;
    });
    const flood = [1, 2].map(() => pool.run('pageCount', { pdf: new Uint8Array(1), label: 'a' } as never, { owner: 'flood' }));
    await tick();
    const b1 = pool.run('pageCount', { pdf: new Uint8Array(1), label: 'b' } as never, { owner: 'other' });
    await tick();
    threads[2]!.finish(1);
    await b1;
    // The flooding key's next job waits for its own threads: the surge thread is not its.
    const a3 = pool.run('pageCount', { pdf: new Uint8Array(1), label: 'a' } as never, { owner: 'flood' });
    await tick();
    assert.equal(threads[2]!.jobs.length, 1);
    const b2 = pool.run('pageCount', { pdf: new Uint8Array(1), label: 'b' } as never, { owner: 'other' });
    await tick();
    assert.equal(threads.length, 3, 'no new thread: the surge thread was kept');
    assert.equal(threads[2]!.jobs.length, 2);
    threads[2]!.finish(2);
    assert.equal(await b2, 2);
    threads[0]!.finish();
    await tick();
    threads[0]!.finish();
    threads[1]!.finish();
    await Promise.all([...flood, a3]);
    await pool.close();
  });

  it('one key alone never gets more than the setting', async () => {
    const threads: FakeThread[] = [];
    const pool = new PdfThreadPool(settings, { warn() {} }, () => {
      const t = new FakeThread();
      threads.push(t);
      return t as unknown as Worker;
    });
    const runs = [1, 2, 3].map(() => pool.run('pageCount', { pdf: new Uint8Array(1), label: 'a' } as never, { owner: 'flood' }));
    await tick();
    assert.equal(threads.length, 2);
    threads[0]!.finish();
    await tick();
    threads[0]!.finish();
    threads[1]!.finish();
    await Promise.all(runs);
    assert.equal(threads.length, 2);
    await pool.close();
  });

  it('a caller that hangs up ends its running job: the thread is terminated and the next job gets a fresh one', async () => {
    const threads: FakeThread[] = [];
    const pool = new PdfThreadPool({ ...settings, threads: 1 }, { warn() {} }, () => {
      const t = new FakeThread();
      threads.push(t);
      return t as unknown as Worker;
    });
    const hangUp = new AbortController();
    const running = pool.run('merge', { files: [] } as never, { owner: 'a', signal: hangUp.signal });
    const next = pool.run('pageCount', { pdf: new Uint8Array(1), label: 'b' } as never, { owner: 'b' });
    await tick();
    assert.equal(threads[0]!.jobs.length, 1);
    hangUp.abort(new Error('client disconnected'));
    await assert.rejects(running, /client disconnected/);
    assert.equal(threads[0]!.terminated, true, 'the running job\'s thread is gone, and its work with it');
    await tick();
    assert.equal(threads.length, 2);
    threads[1]!.finish(7);
    assert.equal(await next, 7);
    await pool.close();
  });

  it('a thread that refused a file ends once idle (what it decoded goes with it) but serves jobs that keep coming; one that succeeded stays', async () => {
    const threads: FakeThread[] = [];
    const pool = new PdfThreadPool({ ...settings, threads: 1, spentIdleMs: 20 }, { warn() {} }, () => {
      const t = new FakeThread();
      threads.push(t);
      return t as unknown as Worker;
    });
    const ok = pool.run('pageCount', { pdf: new Uint8Array(1), label: 'a' } as never, { owner: 'a' });
    await tick();
    threads[0]!.finish(1);
    await ok;
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(threads[0]!.terminated, false, 'a thread whose jobs succeeded is kept');

    const bomb = pool.run('merge', { files: [] } as never, { owner: 'a' });
    const next = pool.run('pageCount', { pdf: new Uint8Array(1), label: 'a' } as never, { owner: 'a' });
    await tick();
    threads[0]!.refuse();
    await assert.rejects(bomb, /refused/);
    await tick();
    assert.equal(threads[0]!.jobs.length, 3, 'the next waiting job is served by the same thread');
    threads[0]!.finish(2);
    assert.equal(await next, 2);
    assert.equal(threads[0]!.terminated, false);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(threads[0]!.terminated, true, 'idle after a refusal: ended');
    const later = pool.run('pageCount', { pdf: new Uint8Array(1), label: 'b' } as never, { owner: 'b' });
    await tick();
    assert.equal(threads.length, 2, 'the next job gets a fresh thread');
    threads[1]!.finish(3);
    assert.equal(await later, 3);
    await pool.close();
  });
});
