/**
 * Worker-thread side of the embedded database: owns the PGlite instance and runs the statements
 * the main thread sends, in arrival order. PGlite executes WebAssembly and synchronous file I/O,
 * so keeping it here keeps that work off the thread that serves HTTP.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';

/** A statement sent by the main thread. */
export interface ThreadRequest {
  id: number;
  op: 'query' | 'exec' | 'copy' | 'close';
  sql?: string;
  params?: unknown[];
  /** CSV text for `copy`. */
  csv?: string;
}

/** What the main thread starts a database thread with. */
export interface ThreadData {
  dir: string;
  sharedBuffers: string;
  /** pglite.wasm compiled once by the main thread (pglite-wasm.ts), so this thread only instantiates it. */
  wasmModule: WebAssembly.Module;
}

/** The answer to one request. */
export interface ThreadReply {
  id: number;
  rows?: Record<string, unknown>[];
  error?: { message: string; code?: string };
}

const { dir, sharedBuffers, wasmModule } = workerData as ThreadData;
if (!dir.startsWith('memory://')) await mkdir(dir, { recursive: true });
// PGlite's default shared_buffers (128MB) is most of its idle footprint (issue 18 "Idle
// footprint"); the tables here are small and the OS page cache holds their files anyway.
const pg = await PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`], pgliteWasmModule: wasmModule });
const port = parentPort!;
let chain = Promise.resolve();

port.on('message', (req: ThreadRequest) => {
  chain = chain.then(async () => {
    const reply: ThreadReply = { id: req.id };
    try {
      if (req.op === 'close') {
        await pg.close();
        reply.rows = [];
      } else if (req.op === 'copy') {
        await pg.query(req.sql!, [], { blob: new Blob([req.csv!]) });
        reply.rows = [];
      } else if (req.op === 'exec') {
        // The last statement's rows: a script that ends in a SELECT answers with them.
        const results = await pg.exec(req.sql!);
        reply.rows = (results.at(-1)?.rows ?? []) as Record<string, unknown>[];
      } else {
        reply.rows = (await pg.query<Record<string, unknown>>(req.sql!, req.params as any[])).rows;
      }
    } catch (err) {
      const e = err as { message?: string; code?: string };
      reply.error = { message: e.message ?? String(err), code: e.code };
    }
    port.postMessage(reply);
    if (req.op === 'close') port.close();
  });
});
port.postMessage({ id: 0, rows: [] } satisfies ThreadReply);
