/**
 * Per-run limits (issue 19, item 2): clients send `timeout` (ms) and `memory` (MB) with a run.
 * They are honoured as lower limits within the service's own caps: a value above a cap gets the
 * cap, one below the floor the floor, and the result's `limits` says which applied.
 */
import type { AppliedLimits } from './types.js';

/** The shortest wall-clock limit a run may ask for. */
export const MIN_TIMEOUT_MS = 100;
/** The least memory an isolate can run with (isolated-vm's own minimum). */
export const MIN_JS_MEMORY_MB = 8;
/** The least memory a Python run can start its code with (the interpreter itself needs ~20 MB). */
export const MIN_PYTHON_MEMORY_MB = 32;

/** The limits a run gets: what it asked for, within `[floor, cap]`; the caps when it asked nothing. */
export function appliedLimits(
  req: { timeoutMs?: number; memoryMb?: number },
  caps: { timeoutMs: number; memoryMb: number; minMemoryMb: number },
): AppliedLimits {
  const within = (asked: number | undefined, least: number, most: number) =>
    asked === undefined || !Number.isFinite(asked) ? most : Math.min(most, Math.max(least, Math.floor(asked)));
  return {
    timeoutMs: within(req.timeoutMs, MIN_TIMEOUT_MS, caps.timeoutMs),
    memoryMb: within(req.memoryMb, caps.minMemoryMb, caps.memoryMb),
  };
}
