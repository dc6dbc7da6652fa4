/**
 * The CPU priority of sandboxed code (issue 24): a run is user work as CPU-heavy as any tool,
 * yet it ran at the service's own priority, so one key's 16 concurrent loops competed equally
 * with `/healthz` and with another key's single run. Runs now get what the tools and LibreOffice
 * get (tools/priority.ts): a key's only run at `CODE_NICE`, each further run of that key going at
 * once `CODE_NICE_STEP` lower, both as the processes' nice and as their session's scheduling group
 * (autogroup), fixed for the run.
 *
 * A sandbox is spawned already at `CODE_NICE` (os-sandbox.ts puts the `nice` prefix before the
 * jail: nothing of the jail is asked for it). A run of a key that already has runs going is
 * moved lower from the host when it is admitted — a pre-started Python sandbox and a pooled
 * JavaScript worker exist before anyone knows whose run they will serve — before the run's code
 * is handed over, so every process the code starts inherits the value.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fairNice, priorityOf, RunsByKey, renice, setEveryThreadNice, setGroupNice, setThreadsNice, type SetNice } from '../tools/priority.js';

/** A run counted for its key: its nice value, and the call that counts it as ended (once). */
export interface RunPriority {
  nice: number;
  end(): void;
}

/** The fair nice values of one engine's runs (`CODE_NICE`, `CODE_NICE_STEP`). */
export class RunPriorities {
  private readonly byKey = new RunsByKey();

  constructor(
    /** Nice of a key's only run, and of every sandbox or worker before a run is admitted to it. */
    readonly base: number,
    private readonly step: number,
  ) {}

  /** Counts a run of `owner` (runs without one share a single owner) as admitted now. */
  start(owner: string | undefined): RunPriority {
    const key = owner ?? '';
    const nice = fairNice(this.base, this.step, this.byKey.start(key));
    let ended = false;
    return {
      nice,
      end: () => {
        if (ended) return;
        ended = true;
        this.byKey.end(key);
      },
    };
  }
}

/**
 * Moves a running sandbox to nice `nice` (the same as priority.ts `renice`, found more cheaply).
 * `ownSession`: the process was spawned in a session of its own (every bubblewrap sandbox), so its
 * session's scheduling group moves too, and so does every thread of its process tree. Otherwise (a
 * JavaScript worker forked without bubblewrap shares the service's session) only that process's
 * own threads move: writing its session's group would move the service itself.
 *
 * The tree is walked down from `pid` through `/proc/<pid>/task/<tid>/children` (a sandbox is a
 * handful of processes: the launcher, bubblewrap's init, the program) instead of scanning every
 * process of the host for the group, which cost about 2 ms of the event loop per move (measured
 * with 140 processes) and is paid on every dispatch of a busy key's run.
 *
 * Answers false when a thread refused the move (a raise back without CAP_SYS_NICE: a service that
 * is not root may lower a priority, never raise it): the run then goes at the lower value, and a
 * pooled process is to be retired after it rather than serve later runs there.
 */
export function moveRun(pid: number | undefined, nice: number, ownSession: boolean, stillWanted: () => boolean, set?: SetNice): boolean {
  if (pid === undefined) return true;
  if (!ownSession) return setThreadsNice(pid, nice, set);
  const tree = treeOf(pid);
  // No children file in this kernel (CONFIG_PROC_CHILDREN off): the group, found by a scan.
  if (!tree) return renice(pid, nice, stillWanted, set);
  setGroupNice(pid, nice, stillWanted);
  return setEveryThreadNice(tree, nice, set);
}

/**
 * Whether the sandbox `pid` runs at nice `nice` now, its session group too when it has a session
 * of its own. A move recorded as done may not have happened: the group write is refused for 100 ms
 * after any other on the host for a service without CAP_SYS_ADMIN, and its one retry is dropped
 * once the run it was for has ended, so a pooled worker's value is checked (two small reads of
 * /proc) before it is trusted for the next run. A process that is gone counts as there.
 */
export function runsAt(pid: number | undefined, nice: number, ownSession: boolean, read: (path: string) => string = (p) => readFileSync(p, 'utf8')): boolean {
  if (pid === undefined) return true;
  const now = priorityOf(pid, read);
  if (!now) return true;
  return now.nice === nice && (!ownSession || now.group === null || now.group === nice);
}

/** `pid` and its descendants, from the children files of /proc; undefined where the kernel has none. */
function treeOf(pid: number): number[] | undefined {
  if (!existsSync(`/proc/${pid}/task/${pid}/children`)) return existsSync(`/proc/${pid}`) ? undefined : [];
  const seen: number[] = [];
  const queue = [pid];
  while (queue.length > 0 && seen.length < 256) {
    const p = queue.shift()!;
    seen.push(p);
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        for (const c of readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').split(' ')) if (c) queue.push(Number(c));
      } catch {
        // Gone while read.
      }
    }
  }
  return seen;
}
