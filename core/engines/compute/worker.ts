/**
 * Worker-thread side of the compute engine: imports the requested module once, calls the named
 * export and posts the result (or the error's name and message) back.
 */
import { parentPort } from 'node:worker_threads';

/** A call from the pool. */
export interface ComputeCall {
  id: number;
  module: string;
  fn: string;
  arg: unknown;
}

/** Its answer. */
export interface ComputeReply {
  id: number;
  value?: unknown;
  error?: { name: string; message: string };
}

const modules = new Map<string, Promise<Record<string, unknown>>>();
const port = parentPort!;

port.on('message', async (call: ComputeCall) => {
  const reply: ComputeReply = { id: call.id };
  try {
    let mod = modules.get(call.module);
    if (!mod) modules.set(call.module, (mod = import(call.module) as Promise<Record<string, unknown>>));
    const exports = await mod;
    // A preload (no function named): the import is all.
    if (!call.fn) return;
    const fn = exports[call.fn];
    if (typeof fn !== 'function') throw new TypeError(`${call.module} has no exported function ${call.fn}`);
    reply.value = await fn(call.arg);
  } catch (err) {
    if (!call.fn) return;
    const e = err as Error;
    reply.error = { name: e?.name ?? 'Error', message: e?.message ?? String(err) };
  }
  port.postMessage(reply);
});
port.postMessage({ id: 0 } satisfies ComputeReply);
