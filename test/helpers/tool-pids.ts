/**
 * Pids of local tools a server under test is running, by their process name (`/proc/<pid>/comm`),
 * among this test process's descendants: how a test sees that a tool ran, or that it is gone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { descendsFrom } from '../../core/engines/processes.js';

/** Pids of running processes named one of `names` that descend from `ancestor`. */
export function toolPids(names: string[], ancestor = process.pid): number[] {
  const found: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (names.includes(readFileSync(`/proc/${p}/comm`, 'utf8').trim()) && descendsFrom(Number(p), ancestor)) found.push(Number(p));
    } catch {
      // ended while it was read
    }
  }
  return found;
}

/**
 * Runs `work` while watching for tools named `names` (every few milliseconds, and once more at the
 * end); answers its result and every such tool's pid seen meanwhile.
 */
export async function watchingTools<T>(names: string[], work: () => Promise<T>): Promise<{ result: T; tools: Set<number> }> {
  const tools = new Set<number>();
  const scan = () => toolPids(names).forEach((p) => tools.add(p));
  const timer = setInterval(scan, 5);
  try {
    const result = await work();
    scan();
    return { result, tools };
  } finally {
    clearInterval(timer);
  }
}
