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

/** Highest nice value Linux knows. */
const LOWEST = 19;

/**
 * `argv` prefixed so it runs at nice `nice` (0 to 19), its session's scheduling group lowered
 * alike. The prefix execs away: no extra process stays. `nice` 0 leaves `argv` as it is.
 *
 * Writing the group's nice needs no privilege (it may only be raised), but the kernel rate-limits
 * such writes to one per 100 ms host-wide unless the writer has CAP_SYS_ADMIN; a refused write is
 * ignored (the run then keeps its process nice), never a reason not to run.
 */
export function atLowPriority(argv: string[], nice: number): string[] {
  const n = Math.min(LOWEST, Math.max(0, Math.trunc(nice)));
  if (n === 0) return argv;
  return ['/usr/bin/nice', '-n', String(n), '/bin/sh', '-c', `echo ${n} > /proc/self/autogroup 2>/dev/null; exec "$@"`, 'low-priority', ...argv];
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
