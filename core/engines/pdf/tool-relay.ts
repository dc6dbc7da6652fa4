/**
 * Tools asked for by a PDF thread run on the thread that serves requests (issue 24). A job of a
 * PDF thread sometimes needs an external tool (`qpdf --decrypt` for an input pdf-lib cannot
 * open). Started from the thread itself, that tool ran on a tool engine of the thread's own
 * (module state is per thread): the instance's TOOLS_* settings, its slots and its turns across
 * keys did not apply, and a caller's hang-up or the job's deadline did not reach it (the thread
 * has no signal, and terminating a thread does not end the processes it started). So the thread
 * posts the run to the pool instead, which runs it on the instance's tool engine with the job's
 * caller and a signal that aborts when the job ends in any way (hang-up, deadline, the thread's
 * death, shutdown), and posts the result back.
 */
import { BusyError } from '../../errors.js';
import type { PdfToolOptions, ToolResult } from './tools.js';

/** What a thread may ask of a tool run: no signal, caller or engine (the pool gives the job's). */
export type RelayedToolOptions = Omit<PdfToolOptions, 'signal' | 'owner' | 'tools'>;

/** Thread → pool: run a tool for job `id`. */
export interface ToolCall {
  id: number;
  tool: { seq: number; cmd: string; args: string[]; opts: RelayedToolOptions };
}

/** Pool → thread: how run `seq` ended. */
export interface ToolAnswer {
  toolSeq: number;
  result?: ToolResult;
  /** `busy`: the instance's tool slots are full and too many runs wait (a 429, not our failure). */
  error?: { busy: boolean; message: string };
}

/** Whether a message from a thread is a tool call (else a job's reply). */
export function isToolCall(msg: unknown): msg is ToolCall {
  return typeof msg === 'object' && msg !== null && 'tool' in msg;
}

/** Whether a message to a thread is a tool answer (else a job). */
export function isToolAnswer(msg: unknown): msg is ToolAnswer {
  return typeof msg === 'object' && msg !== null && 'toolSeq' in msg;
}

/** The thread's side: posts each run and settles it when its answer comes. */
export class ThreadToolRelay {
  private seq = 0;
  private readonly pending = new Map<number, { resolve(r: ToolResult): void; reject(e: unknown): void }>();

  /** `post`: sends a message to the pool; `job`: the id of the job running now (one at a time per thread). */
  constructor(
    private readonly post: (msg: ToolCall) => void,
    private readonly job: () => number | undefined,
  ) {}

  run(cmd: string, args: string[], opts: RelayedToolOptions): Promise<ToolResult> {
    const id = this.job();
    if (id === undefined) return Promise.reject(new Error(`${cmd} was asked for outside a PDF job`));
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      this.post({ id, tool: { seq, cmd, args, opts } });
    });
  }

  answer(msg: ToolAnswer): void {
    const p = this.pending.get(msg.toolSeq);
    if (!p) return;
    this.pending.delete(msg.toolSeq);
    if (msg.result) p.resolve(msg.result);
    else if (msg.error?.busy) p.reject(new BusyError(msg.error.message));
    else p.reject(new Error(msg.error?.message ?? 'the tool run failed'));
  }
}
