/** Lowers the calling thread's priority (Linux keeps one per thread) by `levels`; no-op where refused or unsupported. */
import { getPriority, setPriority } from 'node:os';

export function lowerThisThread(levels: number): void {
  if (levels <= 0) return;
  try {
    setPriority(0, Math.min(19, getPriority(0) + levels));
  } catch {
    // Threads without a priority of their own: left as they are.
  }
}
