/** Process-group helpers of the LibreOffice workers (each worker leads a group of its own). */
import type { ChildProcess } from 'node:child_process';

/** Sends a signal to a child's whole process group, ignoring groups that are already gone. */
export function killGroup(child: ChildProcess | null, signal: NodeJS.Signals): void {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

/** Resolves once the child has exited (at once when it already has). */
export function exited(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}
