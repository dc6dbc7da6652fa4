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
import type { ToolEngine, ToolRunOptions } from '../tools/types.js';

/** A stand-in thread: says it is ready, records each job posted, answers when told. */
class FakeThread extends EventEmitter {
  jobs: { id: number; op: string }[] = [];
  /** Answers to the tools its jobs asked for (tool-relay.ts). */
  toolAnswers: { toolSeq: number; result?: { code: number; stdout: string } }[] = [];
  terminated = false;
  constructor() {
    super();
    queueMicrotask(() => this.emit('message', { id: 0 }));
  }
  postMessage(msg: { id: number; op: string } | { toolSeq: number }): void {
    if ('toolSeq' in msg) this.toolAnswers.push(msg);
    else this.jobs.push(msg);
  }
  /** The running job asks for `cmd` (as load.ts's qpdf does, relayed by thread.ts). */
  askTool(seq: number, cmd: string): void {
    this.emit('message', { id: this.jobs.at(-1)!.id, tool: { seq, cmd, args: ['--decrypt'], opts: { dirs: ['/tmp/pdf-x'], timeoutMs: 1000 } } });
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

/** A tool engine that records each run and ends it when told (or when its signal aborts). */
function recordingTools(): { tools: ToolEngine; runs: { cmd: string; opts: ToolRunOptions; finish(stdout: string): void }[] } {
  const runs: { cmd: string; opts: ToolRunOptions; finish(stdout: string): void }[] = [];
  const tools = {
    imageMaxPixels: 0,
    admitImage: () => {
      throw new Error('not used');
    },
    run: (cmd: string, _args: string[], opts: ToolRunOptions) =>
      new Promise((resolve, reject) => {
        runs.push({ cmd, opts, finish: (stdout) => resolve({ stdout: Buffer.from(stdout), stderr: '', code: 0 }) });
        opts.signal?.addEventListener('abort', () => reject(opts.signal!.reason), { once: true });
      }),
  } as ToolEngine;
  return { tools, runs };
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

  it('a tool a job asks for runs on the job\'s engine for its key, is killed when the caller hangs up, and its answer never reaches the ended thread', async () => {
    const threads: FakeThread[] = [];
    const pool = new PdfThreadPool({ ...settings, threads: 1 }, { warn() {} }, () => {
      const t = new FakeThread();
      threads.push(t);
      return t as unknown as Worker;
    });
    const { tools, runs } = recordingTools();
    const hangUp = new AbortController();
    const running = pool.run('merge', { files: [] } as never, { owner: 'a', signal: hangUp.signal, tools });
    await tick();
    threads[0]!.askTool(1, 'qpdf');
    await tick();
    assert.deepEqual(runs.map((r) => [r.cmd, r.opts.owner, r.opts.dirs]), [['qpdf', 'a', ['/tmp/pdf-x']]], 'run on the job\'s engine, for its key, in its folder');
    assert.equal(runs[0]!.opts.signal?.aborted, false);
    hangUp.abort(new Error('client disconnected'));
    await assert.rejects(running, /client disconnected/);
    assert.equal(runs[0]!.opts.signal?.aborted, true, 'the hang-up reaches the tool');
    await tick();
    assert.deepEqual(threads[0]!.toolAnswers, [], 'nothing is posted to the terminated thread');
    await pool.close();
  });

  it('a tool\'s result goes back to the thread; a job over its time limit kills the tool it waits for', async () => {
    const threads: FakeThread[] = [];
    const pool = new PdfThreadPool({ ...settings, threads: 1, timeoutMs: 50 }, { warn() {} }, () => {
      const t = new FakeThread();
      threads.push(t);
      return t as unknown as Worker;
    });
    const { tools, runs } = recordingTools();
    const first = pool.run('merge', { files: [] } as never, { owner: 'a', tools });
    await tick();
    threads[0]!.askTool(1, 'qpdf');
    await tick();
    runs[0]!.finish('decrypted');
    await tick();
    assert.deepEqual(threads[0]!.toolAnswers, [{ toolSeq: 1, result: { code: 0, stdout: 'decrypted', stderr: '' } }]);
    threads[0]!.finish(1);
    assert.equal(await first, 1);
    assert.equal(runs[0]!.opts.signal?.aborted, true, 'a job that ended leaves no tool behind');
    const late = pool.run('merge', { files: [] } as never, { owner: 'a', tools });
    await tick();
    threads[0]!.askTool(2, 'qpdf');
    await tick();
    await assert.rejects(late, /did not finish within/);
    assert.equal(runs[1]!.opts.signal?.aborted, true, 'the deadline reaches the tool');
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
