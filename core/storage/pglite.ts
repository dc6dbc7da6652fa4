/**
 * Embedded PGlite database stored in a directory (or in memory for `memory://`), run in a worker
 * thread (pglite-thread.ts) so its WebAssembly and file I/O never block request handling. The
 * main side keeps transactions exclusive: while one is open, other statements wait for it.
 */
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { Db, Queryable, Row } from './db.js';
import type { ThreadData, ThreadReply, ThreadRequest } from './pglite-thread.js';
import { threadEntry } from './pglite-thread-entry.js';
import { pgliteWasmModule } from './pglite-wasm.js';
import { lockEmbedded, type EmbeddedLock } from './embedded-lock.js';
import { copyTree } from './copy-tree.js';

/** A PGlite error carried across the thread boundary. */
class PgliteError extends Error {
  constructor(message: string, readonly code?: string) {
    super(message);
    this.name = 'PgliteError';
  }
}

/** Embedded PostgreSQL's shared buffers: 16MB keeps an idle instance small (bench:idle). */
const SHARED_BUFFERS = '16MB';

/**
 * First boot: copies `template` (a fresh cluster, made once by the first boot that needs it) when
 * one is configured, else creates the cluster. Creating one runs initdb, ~5 s of CPU; copying 40 MB
 * takes a fraction of that, which matters where many short-lived instances start (the test suite).
 */
async function firstBoot(dir: string, ext: string, template: string | undefined): Promise<void> {
  if (!template) return createCluster(dir, ext);
  if (!existsSync(join(template, 'PG_VERSION'))) {
    // Made beside the template and renamed into place: instances starting together each make one,
    // the first rename wins and the others are thrown away.
    const making = `${template}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await createCluster(making, ext);
    await mkdir(dirname(template), { recursive: true });
    await rename(making, template).catch(() => rm(making, { recursive: true, force: true }));
  }
  await copyTree(template, dir);
}

/** Creates the cluster in a short-lived process, so its memory leaves with it (pglite-init.ts). */
async function createCluster(dir: string, ext: string): Promise<void> {
  const script = fileURLToPath(new URL(`./pglite-init${ext}`, import.meta.url));
  const args = ext === '.ts' ? ['--import', 'tsx', script] : [script];
  const child = spawn(process.execPath, [...args, dir, SHARED_BUFFERS], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (b) => (err += b));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`creating the embedded database in ${dir} failed: ${err.slice(-500)}`);
}

/** Opens (creating if needed) the embedded database at `dir`, locked to this process (see embedded-lock.ts). */
export async function openPglite(dir: string, opts: { template?: string } = {}): Promise<Db & { lock?: EmbeddedLock }> {
  const lock = dir.startsWith('memory://') ? undefined : lockEmbedded(dir);
  try {
    return await openLocked(dir, lock, opts.template);
  } catch (err) {
    lock?.release();
    throw err;
  }
}

async function openLocked(dir: string, lock: EmbeddedLock | undefined, template: string | undefined): Promise<Db & { lock?: EmbeddedLock }> {
  // Built code runs pglite-thread.js; under tsx (tests, `npm run dev`) the source is .ts.
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  if (!dir.startsWith('memory://') && !existsSync(join(dir, 'PG_VERSION'))) await firstBoot(dir, ext, template);
  const [entry, wasmModule] = await Promise.all([threadEntry(import.meta.url), pgliteWasmModule()]);
  const worker = new Worker(entry.url, { execArgv: entry.execArgv, workerData: { dir, sharedBuffers: SHARED_BUFFERS, wasmModule } satisfies ThreadData });
  const pending = new Map<number, { resolve: (rows: Row[]) => void; reject: (err: Error) => void }>();
  let seq = 0;
  let failure: Error | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    pending.set(0, { resolve: () => resolve(), reject });
  });
  worker.on('message', (reply: ThreadReply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (reply.error) p.reject(new PgliteError(reply.error.message, reply.error.code));
    else p.resolve((reply.rows ?? []) as Row[]);
  });
  const failAll = (err: Error) => {
    failure = err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('error', (err) => failAll(err));
  worker.on('exit', (code) => failAll(new Error(`embedded database thread exited (${code})`)));
  await ready;

  const send = (op: ThreadRequest['op'], sql?: string, params?: unknown[], csv?: string) =>
    new Promise<Row[]>((resolve, reject) => {
      if (failure) return reject(failure);
      const id = ++seq;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, op, sql, params, csv } satisfies ThreadRequest);
    });

  // Transactions run one at a time, in arrival order: each waits for the one queued before it.
  // While one is open (`openTx`), plain statements wait so they never run inside it. Every wait
  // re-checks and sends in the same tick, so nothing slips between a wake-up and the send.
  let txQueue: Promise<void> = Promise.resolve();
  let openTx: Promise<void> | null = null;
  return {
    kind: 'embedded',
    lock,
    async query<R extends Row>(sql: string, params?: unknown[]) {
      while (openTx) await openTx;
      return (await send('query', sql, params)) as R[];
    },
    async exec(sql: string) {
      while (openTx) await openTx;
      return send('exec', sql);
    },
    async copyCsv(table: string, columns: string[], csv: string) {
      while (openTx) await openTx;
      // Table and column names come from our own code, never from a request.
      await send('copy', `COPY ${table} (${columns.join(', ')}) FROM '/dev/blob' WITH (FORMAT csv)`, undefined, csv);
    },
    async transaction(fn) {
      let release!: () => void;
      const mine = new Promise<void>((r) => (release = r));
      const previous = txQueue;
      txQueue = previous.then(() => mine);
      await previous;
      openTx = mine;
      try {
        await send('exec', 'BEGIN');
        const tx: Queryable = { query: async <R extends Row>(sql: string, params?: unknown[]) => (await send('query', sql, params)) as R[] };
        try {
          const out = await fn(tx);
          await send('exec', 'COMMIT');
          return out;
        } catch (err) {
          await send('exec', 'ROLLBACK').catch(() => {});
          throw err;
        }
      } finally {
        openTx = null;
        release();
      }
    },
    async close() {
      await txQueue;
      if (!failure) await send('close').catch(() => {});
      await worker.terminate();
      lock?.release();
    },
  };
}
