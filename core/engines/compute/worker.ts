/**
 * Worker-thread side of the compute engine: imports the modules plugins registered (by the URL
 * they gave), calls the named export and posts the result (or the error's name and message) back.
 */
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

/** A message from the pool: import a registered module, or call one of its exports. */
export type ComputeMessage = { kind: 'load'; module: number; url: string; /** The URL the plugin gave, for messages (`url` may be a bundle's `data:` URL). */ name?: string } | {
      kind: 'call';
      id: number;
      module: number;
      fn: string;
      arg: unknown;
      transferResult?: boolean;
      /** How many nice levels below the thread that started this worker the call runs (its key's fair share: index.ts). */
      nice?: number;
    };

/** An answer to a call; `id` 0 says the worker is ready for messages. */
export interface ComputeReply {
  id: number;
  value?: unknown;
  error?: { name: string; message: string };
  /** The worker's nice, in levels below the thread that started it, once the call ended (or, with `id` 0, once it started). */
  nice?: number;
  /** The call asked for a higher priority than the worker had and the kernel refused the raise (no CAP_SYS_NICE): it ran lower. */
  raiseRefused?: boolean;
}

// Bulk work yields the CPU to the thread that answers every request (issue 24: while two workers
// parsed an attacker's 27 MB bodies, /healthz and other keys' calls waited for a core). On Linux
// the nice value belongs to the thread, so this moves this worker alone. Counted from the thread
// that started it (whose value a new thread inherits), so an instance started under `nice` keeps
// the same distance. The worker idles at the pool's base (COMPUTE_NICE) and each call runs at the
// level the pool gives it: its key's further concurrent calls lower (COMPUTE_NICE_STEP).
const started = safePriority() ?? 0;
let refused = false;

/** This thread's nice value; undefined where threads have none of their own. */
function safePriority(): number | undefined {
  try {
    return getPriority(0);
  } catch {
    return undefined;
  }
}

/**
 * Moves this thread to `below` levels under the thread that started it (0 to 19 in all). Lowering
 * needs no privilege; raising back needs CAP_SYS_NICE (or an RLIMIT_NICE allowance): a refused
 * raise leaves the thread lower and is reported, so the pool can replace the worker.
 */
function runBelow(below: number): void {
  refused = false;
  const target = Math.min(19, started + Math.max(0, below));
  const now = safePriority();
  if (now === undefined || now === target) return;
  try {
    setPriority(0, target);
  } catch {
    // Lowering is never refused on Linux; a refusal is a raise without the privilege.
    refused = target < now;
  }
}

/** The levels this thread runs below the one that started it. */
const levelsBelow = () => (safePriority() ?? started) - started;

runBelow((workerData as { nice?: number } | undefined)?.nice ?? 0);

const modules = new Map<number, { url: string; exports: Promise<Record<string, unknown>> }>();
const port = parentPort!;

port.on('message', async (msg: ComputeMessage) => {
  if (msg.kind === 'load') {
    const exports = import(msg.url) as Promise<Record<string, unknown>>;
    // A module that fails to load fails each call to it, with the import's error; not the worker.
    exports.catch(() => undefined);
    modules.set(msg.module, { url: msg.name ?? msg.url, exports });
    return;
  }
  if (msg.nice !== undefined) runBelow(msg.nice);
  const reply: ComputeReply = { id: msg.id };
  try {
    const mod = modules.get(msg.module);
    if (!mod) throw new Error(`compute: work module ${msg.module} was never loaded in this worker`);
    const fn = (await mod.exports)[msg.fn];
    if (typeof fn !== 'function') throw new TypeError(`${mod.url} has no exported function ${msg.fn}`);
    reply.value = await fn(msg.arg);
  } catch (err) {
    const e = err as Error;
    reply.error = { name: e?.name ?? 'Error', message: e?.message ?? String(err) };
  }
  reply.nice = levelsBelow();
  if (refused) reply.raiseRefused = true;
  try {
    port.postMessage(reply, msg.transferResult ? ownedBuffers(reply.value) : []);
  } catch (err) {
    // A result that cannot be cloned (a function, a class instance with private state) is the work's bug, not the worker's.
    port.postMessage({ id: msg.id, nice: reply.nice, raiseRefused: reply.raiseRefused, error: { name: 'DataCloneError', message: `${msg.fn} returned a value that cannot leave the worker: ${(err as Error).message}` } } satisfies ComputeReply);
  }
});
port.postMessage({ id: 0, nice: levelsBelow() } satisfies ComputeReply);

/**
 * The buffers the result's byte arrays own whole (the result itself, its properties, and the items
 * of its array or object properties: no deeper, so a big result is not walked), to move
 * rather than copy: a decoded megabyte file costs the serving thread nothing to receive.
 */
function ownedBuffers(value: unknown, depth = 0, out = new Set<ArrayBuffer>()): ArrayBuffer[] {
  if (ArrayBuffer.isView(value)) {
    const buf = value.buffer;
    if (buf instanceof ArrayBuffer && value.byteOffset === 0 && value.byteLength === buf.byteLength) out.add(buf);
  } else if (value && typeof value === 'object' && depth < 2) {
    for (const v of Array.isArray(value) ? value : Object.values(value)) ownedBuffers(v, depth + 1, out);
  }
  return [...out];
}
