/** Small helpers about host processes shared by the engines that supervise them. */
import { readdirSync, readFileSync } from 'node:fs';

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses): state, ppid, pgrp, … */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The parent of a process, or undefined when it is gone. */
export function parentPid(pid: number): number | undefined {
  try {
    return Number(statFields(pid)[1]);
  } catch {
    return undefined;
  }
}

/** Whether `pid` is `ancestor` or one of its descendants. */
export function descendsFrom(pid: number, ancestor: number): boolean {
  for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 64; hops++) {
    if (p === ancestor) return true;
    p = parentPid(p);
  }
  return false;
}

/** The pids in /proc for which `test` holds; a process that ends while it is read is left out. */
function pidsWhere(test: (pid: string) => boolean): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => {
      if (!/^\d+$/.test(entry)) return false;
      try {
        return test(entry);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Other processes whose command line contains `text` (a profile or work directory, a script name). */
export function processesUsing(text: string): number[] {
  return pidsWhere((pid) => Number(pid) !== process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text));
}

/** Live (not zombie) members of a process group, read from /proc. */
export function groupMembers(pgid: number): number[] {
  return pidsWhere((pid) => {
    const [state, , pgrp] = statFields(pid);
    return Number(pgrp) === pgid && state !== 'Z' && state !== 'X';
  });
}

/**
 * Waits until a killed process group has really gone (a SIGKILL is delivered at once, but a
 * large process can take a moment to tear down); gives up after `timeoutMs`.
 */
export async function waitForGroupExit(pgid: number, timeoutMs = 3000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (groupMembers(pgid).length === 0) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}
