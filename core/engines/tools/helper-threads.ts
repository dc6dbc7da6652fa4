/**
 * The service's own helper threads below the serving thread (issue 24, bench:abuse). Besides the
 * thread that answers every request, a Node process runs V8's platform threads (concurrent
 * garbage collection and compilation for every isolate) and libuv's pool (file system, DNS and
 * every asynchronous zlib call: the PDF pre-check inflates up to `PDF_MAX_DECODED_MB` of an
 * attacker's object streams there for each refused file). They all start at the serving
 * thread's nice value, so a flood of refused PDF bombs kept two of them busy and the serving
 * thread waited for a core 45% of the phase. Lowered once at boot, they still get every idle
 * core, but a busy core goes to the serving thread first.
 */
import { readdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { getPriority, setPriority } from 'node:os';
import type { SetNice } from './priority.js';

/** Reads a thread's nice value; a parameter so tests can stand in for the kernel. */
export type GetNice = (tid: number) => number;

/**
 * Moves every thread of this process but the calling one (the serving thread) `levels` nice
 * levels below the caller, after making sure libuv's pool exists (it starts all its threads on
 * its first job, so a later one would be started at the serving thread's level). Only lowers: a
 * thread already lower (a compute worker at its level) is left as it is. Refusals and threads
 * that ended meanwhile are ignored. Answers how many threads were moved. Threads started later by
 * the serving thread (worker threads) set their own level (compute, PDF, sandboxes).
 */
export async function lowerHelperThreads(levels: number, set: SetNice = setPriority, get: GetNice = getPriority, tasks: () => string[] = () => readdirSync('/proc/self/task')): Promise<number> {
  if (levels <= 0 || process.platform !== 'linux') return 0;
  await stat('/');
  const own = get(0);
  const target = Math.min(19, own + levels);
  let moved = 0;
  for (const tid of tasks()) {
    const id = Number(tid);
    if (id === process.pid) continue;
    try {
      if (get(id) >= target) continue;
      set(id, target);
      moved += 1;
    } catch {
      // Ended while read, or the kernel refused: the thread keeps its level.
    }
  }
  return moved;
}
