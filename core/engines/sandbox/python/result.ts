/**
 * How a Python sandbox's end becomes the run's result (spec §4.8): the runner's fd 3 report
 * (`{}` or the error object), or — when the run did not end as the runner intended (killed,
 * timed out, out of memory, exited early) — an error object of the service's own, never a
 * success that would be charged.
 */
import type { AppliedLimits, ExecutionErrorInfo, SandboxResult } from '../types.js';
import type { ProcessOutcome } from '../confinement/process-run.js';
import { capError, timeoutError } from '../output.js';

/** The result of a run that ended with `o`, under `limits`; `outOfMemory`: the cgroup's OOM killer acted. */
export function pythonResult(o: ProcessOutcome, limits: AppliedLimits, outOfMemory: boolean): SandboxResult {
  const base = { stdout: o.stdout, stderr: o.stderr, truncated: o.truncated, durationMs: o.durationMs };
  const overMemory = (): ExecutionErrorInfo => ({ name: 'MemoryError', value: `The run exceeded its memory limit of ${limits.memoryMb} MB.`, traceback: o.stderr.slice(-20).join('\n') });
  // A run the OOM killer acted in during this run broke on its memory even when the clock then
  // stopped it: a parent left waiting for a child killed for memory runs into the time limit,
  // and "timed out" would send the caller after the wrong limit. The count is the run's own
  // cgroup's, read before and after it, so the evidence is this run's.
  if (o.timedOut) return { ...base, error: outOfMemory ? capError(overMemory()) : timeoutError(limits.timeoutMs) };
  if (o.aborted) return { ...base, error: { name: 'AbortError', value: 'The run was stopped.', traceback: '' } };
  const reported = readResult(o.result);
  let error = reported === 'unreadable' || reported === 'ok' ? undefined : reported;
  if (error?.name === 'MemoryError' && error.value === '') {
    error.value = `The run exceeded its memory limit of ${limits.memoryMb} MB.`;
  }
  // The cgroup's OOM killer stopped a process of the run: the run as a whole used too much.
  if (!error && outOfMemory) error = overMemory();
  if (!error && o.flooded) return base; // stopped for flooding output: the capped logs are the answer
  if (!error && o.signal === 'SIGXCPU') error = timeoutError(limits.timeoutMs);
  // No readable result means the run did not finish as the runner intended (killed, exited
  // early, or its result was cut): an error, never a success that would be charged.
  if (!error && (reported === 'unreadable' || o.exitCode !== 0 || o.signal)) {
    const how = o.signal ? `was killed by ${o.signal}` : `exited with status ${o.exitCode}`;
    const unreported = reported === 'unreadable' ? ' without reporting its result' : '';
    error = { name: 'ProcessExitError', value: `The Python process ${how}${unreported}.`, traceback: o.stderr.slice(-20).join('\n') };
  }
  return error ? { ...base, error: capError(error) } : base;
}

/** The runner's fd 3 report: `{}` for success, the error object, or unreadable (missing, cut, not ours). */
function readResult(raw: string): ExecutionErrorInfo | 'ok' | 'unreadable' {
  try {
    const parsed = JSON.parse(raw) as Partial<Record<keyof ExecutionErrorInfo, unknown>> | null;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return 'unreadable';
    if (typeof parsed.name !== 'string') return Object.keys(parsed).length === 0 ? 'ok' : 'unreadable';
    return capError({ name: parsed.name, value: String(parsed.value ?? ''), traceback: stripAnsi(String(parsed.traceback ?? '')) });
  } catch {
    return 'unreadable';
  }
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '');
}
