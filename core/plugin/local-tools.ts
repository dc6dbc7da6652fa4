/**
 * Local tools for plugins (poppler, tesseract, ffmpeg, qpdf…): the one way a plugin runs an
 * external program. Every run goes through the local-tool engine (core/engines/tools), confined
 * (own uid, cleared environment, no network, only its scratch folders), memory-capped, time-limited
 * and killed with its whole process tree when the caller's signal aborts; a gate bounds how many
 * run at once and serves callers in turn; scratch directories are always removed (issue 15).
 * In the SDK because every lane that shells out to a Debian tool needs the same things.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FairQueue } from '../util/fair-queue.js';
import { processToolEngine } from '../engines/tools/index.js';
import type { ToolEngine, ToolResult, ToolRunOptions } from '../engines/tools/types.js';

export { ToolError, type ToolResult, type ToolFailure, type ToolRunOptions, type ToolEngine, type ImageHeader } from '../engines/tools/types.js';

/** Scratch folders of {@link withScratch} alive now: a run whose arguments name one may use it. */
const scratchDirs = new Set<string>();

/** The scratch folders `args` name (a file inside one, an output pattern, the folder itself). */
function namedScratch(args: string[]): string[] {
  const found = new Set<string>();
  for (const arg of args) {
    for (const dir of scratchDirs) if (arg === dir || arg.startsWith(`${dir}/`)) found.add(dir);
  }
  return [...found];
}

/**
 * Runs `cmd args` confined and collects its output (stdout capped at `maxBytes`). `tools` is the
 * run context's engine (`ctx.engines.tools`), so the server's limits apply; without it the
 * process-wide engine runs it, confined the same way. The tool sees the `withScratch` folders
 * its arguments name and `dirs`, nothing else of the host.
 */
export function runTool(cmd: string, args: string[], opts: ToolRunOptions & { tools?: ToolEngine }): Promise<ToolResult> {
  const { tools, ...run } = opts;
  const dirs = [...new Set([...(run.dirs ?? []), ...namedScratch(args)])];
  return (tools ?? processToolEngine()).run(cmd, args, { ...run, dirs });
}

/** What one call keeps to run its tools: the plugin's gate and the call's engine, time limit, signal and caller. */
export interface GatedToolCall {
  /** The plugin's gate (bounds its processes, serves callers in turn). */
  gate: Gate;
  /** The call's signal (`ctx.signal`): a hang-up drops a waiting run and kills a running one. */
  signal?: AbortSignal;
  /** Wall time of one run. */
  timeoutMs: number;
  /** The call's tool engine (`ctx.engines.tools`), so the server's limits apply. */
  tools?: ToolEngine;
  /** The calling key's opaque id (`ctx.caller`): the gate and the instance's tool slots serve keys in turn. */
  caller?: string;
}

/**
 * Runs `cmd args` for one call (issue 29: four plugins wrote this same lambda): through the
 * plugin's gate in turn by caller, on the call's engine, with the call's signal and time limit.
 * `extra` adds per-run options (an output cap, stdin, scratch folders…).
 */
export function runGatedTool(call: GatedToolCall, cmd: string, args: string[], extra: Omit<ToolRunOptions, 'signal' | 'timeoutMs' | 'owner'> = {}): Promise<ToolResult> {
  return call.gate.run(() => runTool(cmd, args, { ...extra, signal: call.signal, timeoutMs: call.timeoutMs, tools: call.tools, owner: call.caller }), call.signal, call.caller);
}

interface Waiter {
  owner: string;
  go(): void;
}

/**
 * Bounds concurrent work and serves callers in turn (issue 24: one key's backlog held every
 * other key behind it): a free slot goes to the earliest waiter of the caller holding the fewest
 * slots, so another caller's first job waits for at most one job to finish. Waiters leave the
 * queue when their signal aborts.
 */
export class Gate {
  private running = 0;
  private readonly queue = new FairQueue<Waiter>();
  constructor(private readonly size: number) {}

  /** Runs `fn` once a slot is free; `caller` is the opaque key id of the run context (`ctx.caller`). */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal, caller = ''): Promise<T> {
    if (signal?.aborted) throw signal.reason;
    // Every job passes through the queue, even when a slot is free, so it counts what each caller holds.
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        owner: caller,
        go: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        if (this.queue.remove(waiter)) reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.next();
    });
    try {
      return await fn();
    } finally {
      this.running -= 1;
      this.queue.done(caller);
      this.next();
    }
  }

  /** Hands free slots to waiters, fairly. */
  private next(): void {
    while (this.running < this.size) {
      const w = this.queue.take();
      if (!w) return;
      this.running += 1;
      w.go();
    }
  }
}

/**
 * Runs `fn` with a fresh scratch directory (in `root`, by default the system temp dir), removed
 * afterwards whatever happens; a tool whose arguments name it may use it.
 */
export async function withScratch<T>(prefix: string, fn: (dir: string) => Promise<T>, root = tmpdir()): Promise<T> {
  const dir = await mkdtemp(join(root, `${prefix}-`));
  scratchDirs.add(dir);
  try {
    return await fn(dir);
  } finally {
    scratchDirs.delete(dir);
    await rm(dir, { recursive: true, force: true });
  }
}
