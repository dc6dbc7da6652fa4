/**
 * Local tools for plugins (poppler, tesseract, ffmpeg…): one process run with a time limit, the
 * caller's abort signal and an output cap, a gate bounding how many run at once on the instance,
 * and scratch directories that are always removed (issue 15: "every temporary file is removed").
 * In the SDK because every lane that shells out to a Debian tool needs the same four things.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A finished process run. */
export interface ToolResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/** Thrown when a tool exits non-zero, times out or cannot start; `stderr` is for the log only. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly stderr = '',
  ) {
    super(message);
  }
}

/** Runs `cmd args` and collects its output (stdout capped at `maxBytes`). */
export function runTool(cmd: string, args: string[], opts: { signal?: AbortSignal; timeoutMs: number; maxBytes?: number; maxStderr?: number }): Promise<ToolResult> {
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let failure: ToolError | undefined;
    const stop = (why: string) => {
      failure ??= new ToolError(why);
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(`${cmd} took longer than ${opts.timeoutMs} ms`), opts.timeoutMs);
    const onAbort = () => stop(`${cmd} cancelled`);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > maxBytes) return stop(`${cmd} wrote more than ${maxBytes} bytes`);
      out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (stderr.length < (opts.maxStderr ?? 8192)) stderr += b.toString();
    });
    child.on('error', (err) => {
      failure ??= new ToolError(`${cmd} could not start: ${err.message}`);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (failure) return reject(Object.assign(failure, { stderr }));
      if (code !== 0) return reject(new ToolError(`${cmd} exited with ${code}`, stderr));
      resolve({ stdout: Buffer.concat(out), stderr, code: 0 });
    });
  });
}

/** Bounds concurrent work; waiters leave the queue when their signal aborts. */
export class Gate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly size: number) {}

  /** Runs `fn` once a slot is free. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.running >= this.size) {
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = this.waiting.indexOf(go);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal!.reason);
        };
        if (signal?.aborted) return reject(signal.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(go);
      });
    } else this.running += 1;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

/** Runs `fn` with a fresh scratch directory, removed afterwards whatever happens. */
export async function withScratch<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
