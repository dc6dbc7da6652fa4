/** Work for the compute engine's test (registered by URL, loaded inside its worker threads). */
import { getPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';

/** Adds numbers; says where it ran. */
export function sum(xs: number[]): { total: number; mainThread: boolean } {
  return { total: xs.reduce((a, b) => a + b, 0), mainThread: isMainThread };
}

/** Keeps the CPU busy for `ms`. */
export function spin(ms: number): number {
  const start = Date.now();
  while (Date.now() - start < ms);
  return Date.now() - start;
}

/** Throws a RangeError. */
export function fail(message: string): never {
  throw new RangeError(message);
}

/** Allocates until the heap limit is reached. */
export function hog(): number {
  const keep: string[][] = [];
  for (;;) keep.push(Array.from({ length: 100_000 }, (_, i) => `item ${i} ${keep.length}`));
}

/** Returns something that cannot be structured-cloned back to the caller. */
export function unclonable(): () => void {
  return () => undefined;
}

/** Each byte of `data` plus one, in a fresh array (moved back when the caller asks). */
export function plusOne(data: Uint8Array): { out: Uint8Array } {
  return { out: Uint8Array.from(data, (b) => b + 1) };
}

/** The nice value of the thread running the work, and of the process's main thread (Linux: per thread). */
export function niceness(): { thread: number; process: number } {
  return { thread: getPriority(0), process: getPriority(process.pid) };
}

/**
 * The nice value of the thread running the work, read as the call starts, after which the thread
 * waits `ms` without using the CPU (so calls of a test overlap cheaply).
 */
export function heldNiceness(ms: number): { thread: number; process: number } {
  const seen = niceness();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  return seen;
}
