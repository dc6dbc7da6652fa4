/**
 * Drives one sandboxed process to its end: feeds stdin, collects capped stdout/stderr and the
 * fd 3 result, enforces the wall clock from the host and kills the whole tree on timeout, abort
 * or an output flood (issue 6: "killed with its whole process tree at 10 s").
 */
import type { ChildProcess } from 'node:child_process';
import { StreamCollector } from '../output.js';
import { killSandbox } from './os-sandbox.js';

/** How a sandboxed process ended. */
export interface ProcessOutcome {
  stdout: string[];
  stderr: string[];
  truncated: boolean;
  /** Text written to fd 3 (capped). */
  result: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Killed for printing far past the output caps (the capped logs are still the answer). */
  flooded: boolean;
  durationMs: number;
}

/** Options of {@link driveProcess}. */
export interface DriveOptions {
  uid: number | null;
  stdin?: string;
  timeoutMs: number;
  maxLines: number;
  maxBytes: number;
  signal?: AbortSignal;
}

const RESULT_CAP = 4 * 1024 * 1024;

/** Waits for the process to finish under the given limits; never rejects. */
export function driveProcess(child: ChildProcess, opts: DriveOptions): Promise<ProcessOutcome> {
  const started = performance.now();
  const out = new StreamCollector(opts.maxLines, opts.maxBytes);
  const err = new StreamCollector(opts.maxLines, opts.maxBytes);
  let result = '';
  let timedOut = false;
  let aborted = false;
  let flooded = false;
  let killing: Promise<void> | undefined;
  const kill = () => (killing ??= killSandbox(child, opts.uid));
  // Past 16× the cap the run is only burning CPU: stop it and report the truncation.
  const floodLimit = opts.maxBytes * 16;
  const onData = (c: StreamCollector) => (chunk: Buffer) => {
    c.push(chunk);
    if (c.droppedBytes > floodLimit) {
      flooded = true;
      void kill();
    }
  };
  child.stdout?.on('data', onData(out));
  child.stderr?.on('data', onData(err));
  const fd3 = child.stdio[3] as NodeJS.ReadableStream | undefined | null;
  fd3?.on('data', (chunk: Buffer) => {
    if (result.length < RESULT_CAP) result += chunk.toString('utf8');
  });
  fd3?.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
  else child.stdin?.end();

  const timer = setTimeout(() => {
    timedOut = true;
    void kill();
  }, opts.timeoutMs);
  const onAbort = () => {
    aborted = true;
    void kill();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();

  return new Promise<ProcessOutcome>((resolve) => {
    let spawnError = false;
    child.on('error', () => {
      spawnError = true;
    });
    child.on('close', async (code, sig) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (killing) await killing;
      else if (timedOut || aborted) await kill();
      const stdout = out.finish();
      const stderr = err.finish();
      if (spawnError) stderr.push('The sandbox could not be started.');
      resolve({
        stdout,
        stderr,
        truncated: out.truncated || err.truncated,
        result,
        exitCode: code,
        signal: sig,
        timedOut,
        aborted,
        flooded,
        durationMs: performance.now() - started,
      });
    });
  });
}
