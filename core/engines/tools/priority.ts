/**
 * The CPU priority of external programs (issue 24: `/healthz` took 100–350 ms while floods of
 * ffmpeg, tesseract, poppler or LibreOffice runs shared the two cores with the serving thread).
 * Each run is started below the service's priority, so a busy core goes to the thread that
 * answers every small call first, and runs of several keys share what is left.
 *
 * A nice value alone is not enough on Linux with autogroup scheduling (`kernel.sched_autogroup_enabled`,
 * on by default on most distributions): every session is its own scheduling group, and nice
 * only orders the threads inside one group. Programs are spawned detached (a session of their
 * own, so their whole tree can be killed by group), so a niced tool was still a whole group of
 * its own, weighted like the entire service. The launcher therefore also lowers its session's
 * group (`/proc/self/autogroup`) before it execs the program. Where autogroups are off, or where
 * the service runs inside a cpu cgroup (a container), the process nice value is what counts.
 */

import { readdirSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { groupMembers } from '../processes.js';

/** Highest nice value Linux knows. */
const LOWEST = 19;

/** `nice` as a whole nice value Linux accepts for a lower priority (0 to 19). */
const niceValue = (nice: number): number => Math.min(LOWEST, Math.max(0, Math.trunc(nice)));

/**
 * The nice value of a run that its key starts while `alreadyRunning` other runs of the same key
 * are going (issue 24: a flood at one fixed nice made a victim's single run yield to all of it):
 * the key's first run gets `base`, each further one `step` lower, capped at 19. So one key's
 * flood sinks below another key's single call, in the spirit of the fair gates, while a lone call
 * keeps `base`. Fixed for the life of the run: a run already going is not raised again when its
 * key's other runs end (raising a priority needs CAP_SYS_NICE). The tools, LibreOffice jobs and
 * the compute workers' calls (each call on the worker thread that takes it) are niced this way.
 */
export function fairNice(base: number, step: number, alreadyRunning: number): number {
  return niceValue(niceValue(base) + Math.max(0, Math.trunc(step)) * Math.max(0, alreadyRunning));
}

/** How many runs each key has going now, for {@link fairNice}; one per engine (tools, office). */
export class RunsByKey {
  private readonly counts = new Map<string, number>();

  /** Counts a run of `key` as started; returns how many of that key were going before it. */
  start(key: string): number {
    const before = this.counts.get(key) ?? 0;
    this.counts.set(key, before + 1);
    return before;
  }

  /** Counts a run of `key` as ended. */
  end(key: string): void {
    const n = (this.counts.get(key) ?? 1) - 1;
    if (n > 0) this.counts.set(key, n);
    else this.counts.delete(key);
  }
}

/**
 * `argv` prefixed so it runs at nice `nice` (0 to 19), its session's scheduling group lowered
 * alike. The prefix execs away: no extra process stays. `nice` 0 leaves `argv` as it is.
 *
 * Writing the group's nice needs no privilege (it may only be raised), but the kernel rate-limits
 * such writes to one per 100 ms host-wide unless the writer has CAP_SYS_ADMIN; a refused write is
 * ignored (the run then keeps its process nice), never a reason not to run.
 */
export function atLowPriority(argv: string[], nice: number): string[] {
  const n = niceValue(nice);
  if (n === 0) return argv;
  return ['/usr/bin/nice', '-n', String(n), '/bin/sh', '-c', `echo ${n} > /proc/self/autogroup 2>/dev/null; exec "$@"`, 'low-priority', ...argv];
}

/**
 * Moves a running process group (a pooled LibreOffice worker, between jobs) to nice `nice`: its
 * session's scheduling group (what counts under autogroup scheduling; any value from 0 up may be
 * written by the group's owner, root or not) and every thread of its members (a service that is not
 * root may only lower their priority, never raise it back: the threads then keep the lowest value
 * they had, and the group's value still decides its share). Every refusal is ignored: a job always
 * runs. The kernel allows one group write per 100 ms host-wide without CAP_SYS_ADMIN, so a write
 * refused for that is tried once more a little later. Answers false when a thread's change was
 * refused (it keeps a lower priority than `nice`): the caller decides whether the process may
 * serve another key like that.
 */
export function renice(pgid: number, nice: number, stillWanted: () => boolean = () => true, set: SetNice = setPriority): boolean {
  const n = niceValue(nice);
  setGroupNice(pgid, n, stillWanted);
  return setEveryThreadNice(groupMembers(pgid), n, set);
}

/** {@link setThreadsNice} for each of `pids`; false when any thread refused (every one is still tried). */
export function setEveryThreadNice(pids: Iterable<number>, nice: number, set: SetNice = setPriority): boolean {
  let all = true;
  for (const pid of pids) all = setThreadsNice(pid, nice, set) && all;
  return all;
}

/**
 * Writes nice `nice` to the scheduling group (autogroup) of `pid`'s session. The kernel takes one
 * such write per 100 ms host-wide without CAP_SYS_ADMIN: a write refused for that is tried once
 * more 110 ms later, if `stillWanted`; any other refusal is ignored.
 */
export function setGroupNice(pid: number, nice: number, stillWanted: () => boolean = () => true): void {
  const n = niceValue(nice);
  const write = () => {
    try {
      writeFileSync(`/proc/${pid}/autogroup`, String(n));
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code !== 'EAGAIN';
    }
  };
  if (!write()) setTimeout(() => stillWanted() && write(), 110).unref();
}

/** Sets one thread's nice value (node:os `setPriority`); a parameter so tests can refuse like a kernel without CAP_SYS_NICE. */
export type SetNice = (tid: number, nice: number) => void;

/**
 * Whether `err` is the kernel refusing a change (EACCES: a raise without CAP_SYS_NICE or an
 * RLIMIT_NICE allowance; EPERM: another user's process), not a thread that is gone (ESRCH).
 */
function isRefusal(err: unknown): boolean {
  const e = err as { code?: string; info?: { code?: string } };
  // node:os reports errno in `info.code` (its own `code` is ERR_SYSTEM_ERROR).
  const code = e?.info?.code ?? e?.code;
  return code === 'EACCES' || code === 'EPERM';
}

/**
 * Sets the nice value of every thread of `pid`. Never throws: a thread that is gone is skipped;
 * a refused change (a raise without CAP_SYS_NICE) leaves that thread at its lower priority and
 * makes the answer false, so the caller can retire a pooled process that would otherwise serve
 * every later run, another key's lone run included, at a flood's priority.
 */
export function setThreadsNice(pid: number, nice: number, set: SetNice = setPriority): boolean {
  const n = niceValue(nice);
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true;
  }
  let all = true;
  for (const tid of tids) {
    try {
      set(Number(tid), n);
    } catch (err) {
      if (isRefusal(err)) all = false;
    }
  }
  return all;
}

/** A program's nice value and its scheduling group's, read from /proc (for tests and the bench); undefined once it is gone. */
export function priorityOf(pid: number, read: (path: string) => string): { nice: number; group: number | null } | undefined {
  try {
    // Field 19 of stat, counted after the command name, which may itself hold spaces and parentheses.
    const stat = read(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const nice = Number(fields[16]);
    let group: number | null = null;
    try {
      const m = / nice (-?\d+)/.exec(read(`/proc/${pid}/autogroup`));
      group = m ? Number(m[1]) : null;
    } catch {
      // No autogroup support in this kernel.
    }
    return { nice, group };
  } catch {
    return undefined;
  }
}
