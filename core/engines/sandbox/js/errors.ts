/**
 * Error objects of the JavaScript worker (spec §4.8: `{ name, value, traceback }`): host-side
 * failures (termination, memory, compile and link errors) mapped to the error object, Node-like
 * syntax error reports, and isolate stacks without the sandbox's own frames.
 */
import type { ExecutionErrorInfo, SandboxResult } from '../types.js';
import { timeoutError } from '../output.js';

/** A failure to link an ES module (a missing package or a Node built-in), reported as `Error`. */
export class ModuleError extends Error {
  override name = 'Error';
}

/**
 * Maps host-side failures (termination, memory, compile errors) to the error object. `disposed`:
 * the isolate is gone without the wall clock having run out, which isolated-vm only does when
 * the heap limit is hit (pending calls then fail with "Promise was abandoned").
 */
export function classify(
  err: unknown,
  timedOut: boolean,
  msg: { timeoutMs: number; memoryMb: number; code: string; bundle?: string },
  disposed = false,
): ExecutionErrorInfo {
  const e = err instanceof Error ? err : new Error(String(err));
  if (timedOut || /Script execution timed out/.test(e.message)) return timeoutError(msg.timeoutMs);
  if (disposed || /memory limit|Array buffer allocation failed|disposed/i.test(e.message)) {
    return { name: 'MemoryLimitError', value: `The code exceeded the memory limit of ${msg.memoryMb} MB.`, traceback: '' };
  }
  if (e.name === 'SyntaxError') return syntaxError(e.message, msg.bundle ?? msg.code);
  if (e instanceof ModuleError) return { name: 'Error', value: e.message, traceback: `Error: ${e.message}` };
  return { name: e.name || 'Error', value: e.message, traceback: e.stack ?? `${e.name}: ${e.message}` };
}

/** A Node-like syntax error report: location, the source line, a caret, then the message. */
function syntaxError(message: string, code: string): ExecutionErrorInfo {
  const m = /^(.*) \[main\.js:(\d+):(\d+)\]$/.exec(message);
  if (!m) return { name: 'SyntaxError', value: message, traceback: `SyntaxError: ${message}` };
  const [, text, line, col] = m;
  const src = code.split('\n')[Number(line) - 1] ?? '';
  const caret = ' '.repeat(Math.max(0, Number(col) - 1)) + '^';
  return { name: 'SyntaxError', value: text!, traceback: `main.js:${line}\n${src}\n${caret}\n\nSyntaxError: ${text}` };
}

/** Drops host frames, the runtime's frames and the wrapper's last-line frame from an isolate stack. */
export function cleanStack(stack: string, wrapperLine: number): string {
  const cut = stack.indexOf('    at (<isolated-vm boundary>)');
  const s = cut >= 0 ? stack.slice(0, cut).trimEnd() : stack;
  return s
    .split('\n')
    .filter((l) => !(/^\s+at /.test(l) && (l.includes('<isolated-vm>') || l.includes(`main.js:${wrapperLine}:`))))
    .join('\n');
}

/**
 * The error of a run whose worker process died under it: the cgroup's OOM killer, the pool's
 * backstop (time), V8 giving up on memory (isolated-vm's Map bug aborts the process), or anything
 * else. The OOM killer comes first: its count is the worker's own cgroup's, read when the run
 * started, so a kill for memory is this run's even when the backstop fired too (a worker stalled
 * at its memory limit can outlast the clock before the kernel kills it). The stderr text is no
 * such evidence, so the clock still comes before it.
 */
export function crashError(o: {
  timedOut: boolean;
  oom: boolean;
  /** What the worker wrote to stderr during the run. */
  stderr: string;
  signal: NodeJS.Signals | null;
  code: number | null;
  msg: { timeoutMs: number; memoryMb: number };
}): ExecutionErrorInfo {
  const overMemory: ExecutionErrorInfo = { name: 'MemoryLimitError', value: `The code exceeded the memory limit of ${o.msg.memoryMb} MB.`, traceback: '' };
  if (o.oom) return overMemory;
  if (o.timedOut) return timeoutError(o.msg.timeoutMs);
  if (/heap|memory|allocation|OOM/i.test(o.stderr) || o.signal === 'SIGABRT' || o.signal === 'SIGTRAP') return overMemory;
  return { name: 'SandboxCrashError', value: `The sandbox stopped unexpectedly (${o.signal ?? `exit ${o.code}`}).`, traceback: '' };
}

/** The answer of runs queued while the workers could not be prepared. */
export function startFailure(): SandboxResult {
  return { stdout: [], stderr: [], truncated: false, durationMs: 0, error: { name: 'SandboxError', value: 'The JavaScript sandbox could not start.', traceback: '' } };
}
