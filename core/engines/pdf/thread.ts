/**
 * The PDF thread (issue 24, finding 2): runs one job of jobs.ts at a time under the decode cap
 * and posts the result back (PDF bytes transferred, not copied). A catalogue error keeps its
 * class name and message across the boundary; anything else is reported as a failure. A tool a
 * job needs (qpdf) is not started here: the serving thread runs it for the job (tool-relay.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { getPriority, setPriority } from 'node:os';
import { jobs, type PdfJobs } from './jobs.js';
import { withDecodeCap, DecodeLimitError } from './decode-cap.js';
import { overCap } from './load.js';
import { BusyError, InputError } from '../../errors.js';
import { relayToolRuns } from './tools.js';
import { ThreadToolRelay, isToolAnswer, type ToolAnswer, type ToolCall } from './tool-relay.js';

/** A job sent to the thread. */
export interface PdfThreadRequest {
  id: number;
  op: keyof PdfJobs;
  arg: unknown;
}

/** Its answer; `id` 0 says the thread is ready. */
export interface PdfThreadReply {
  id: number;
  value?: unknown;
  /** `input`: the caller's file is at fault (a 400 with this message); `busy`: the instance's tool slots are full (429); `failed`: ours. */
  error?: { kind: 'input' | 'busy' | 'failed'; message: string };
}

const port = parentPort!;
const { decodeLimitBytes, nice } = workerData as { decodeLimitBytes: number; nice?: number };

// Linux keeps a nice value per thread, and this one starts at the level of the thread that
// started it (the serving thread): parsing and merging a user's files, a flood of PDF bombs
// included, goes below it so the serving thread gets a busy core first.
if (nice) {
  try {
    setPriority(0, Math.min(19, getPriority(0) + nice));
  } catch {
    // No per-thread priority here: the thread runs at its starter's level.
  }
}

/** The job running now (one at a time): the tools it asks for run for it (tool-relay.ts). */
let current: number | undefined;
const tools = new ThreadToolRelay((call: ToolCall) => port.postMessage(call), () => current);
relayToolRuns((cmd, args, opts) => tools.run(cmd, args, opts));

port.on('message', async (msg: PdfThreadRequest | ToolAnswer) => {
  if (isToolAnswer(msg)) return tools.answer(msg);
  current = msg.id;
  let reply: PdfThreadReply;
  const transfer: ArrayBuffer[] = [];
  try {
    const value = await withDecodeCap(decodeLimitBytes, async () => {
      try {
        return await (jobs[msg.op] as (a: unknown) => Promise<unknown>)(msg.arg);
      } catch (err) {
        // A stream decoded after loading (a structure merge) went over the cap.
        if (err instanceof DecodeLimitError) throw overCap('A file', err);
        throw err;
      }
    });
    const bytes = value instanceof Uint8Array ? value : (value as { pdf?: unknown })?.pdf instanceof Uint8Array ? (value as { pdf: Uint8Array }).pdf : undefined;
    if (bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) transfer.push(bytes.buffer as ArrayBuffer);
    reply = { id: msg.id, value };
  } catch (err) {
    const e = err as Error;
    reply = { id: msg.id, error: { kind: err instanceof InputError ? 'input' : err instanceof BusyError ? 'busy' : 'failed', message: e?.message ?? String(err) } };
  }
  current = undefined;
  port.postMessage(reply, transfer);
});
port.postMessage({ id: 0 } satisfies PdfThreadReply);
