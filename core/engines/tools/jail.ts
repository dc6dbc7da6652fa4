/**
 * How one local tool run is confined (issue 24, finding 5: ffmpeg, tesseract and poppler ran as
 * uid 0 with ADMIN_TOKEN and every provider key in their environment, on the host's network):
 * - bubblewrap with every namespace unshared, network included, capabilities dropped, no nested
 *   user namespaces and the sandboxes' seccomp filter;
 * - a file system of read-only `/usr`, the few `/etc` files the loader and fonts need, a small
 *   tmpfs `/tmp`, and the run's scratch folders read-write at their host paths (so a tool's
 *   arguments need no rewriting); the rest of the root read-only and empty;
 * - an environment of PATH, HOME, locale and thread limits only;
 * - as root: a uid of its own from a host-wide block and the block's shared tool group (scratch
 *   folders are that group's, so successive tools of one call read each other's files), the
 *   memory cgroup joined before anything of the run starts; rlimits through `prlimit`;
 * - a nice value below the service's, its session's scheduling group lowered alike (priority.ts).
 */
import { bwrapBase, prlimitArgs } from '../sandbox/confinement/bwrap-base.js';
import { atLowPriority } from './priority.js';

/** Read-only host files tools need besides `/usr` (bound when present). */
const TOOL_ETC = ['/etc/ld.so.cache', '/etc/alternatives', '/etc/fonts', '/etc/localtime', '/etc/mime.types'];

/** Variables of the service's environment a tool may see: locale and time zone, nothing secret. */
const PASSED = /^(LANG|LANGUAGE|LC_[A-Z_]+|TZ)$/;

/** Size of the run's own `/tmp` tmpfs. */
const TMPFS_MB = 64;

/** The environment of a tool run. */
export function toolEnv(serviceEnv: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {
    PATH: '/usr/bin:/bin',
    HOME: '/tmp',
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    // One thread each: runs are already parallel across the gate, and OpenMP's thread pool (tesseract)
    // and glibc's per-thread arenas would otherwise multiply one run's memory by the core count.
    OMP_THREAD_LIMIT: '1',
    MALLOC_ARENA_MAX: '2',
  };
  for (const [k, v] of Object.entries(serviceEnv)) if (PASSED.test(k) && v) env[k] = v;
  return env;
}

/** One run's confinement. */
export interface ToolJail {
  /** null: bubblewrap cannot confine here (probed at start); the tool then runs without namespaces. */
  bwrapBin: string | null;
  /** The run's own uid and the tool group; null when the service is not root. */
  ids: { uid: number; gid: number } | null;
  /** Read-write folders, bound at their host paths. */
  dirs: string[];
  /** Read-only files or folders bound at their host paths (a binary outside `/usr`). */
  roPaths: string[];
  env: Record<string, string>;
  limits: { asBytes?: number; cpuSeconds: number; fsizeBytes: number; nproc?: number };
  /** Memory cgroup the run joins first (root only). */
  cgroup?: string;
  /** Pass the seccomp program on fd 3. */
  seccomp: boolean;
  /** Which of `TOOL_ETC` exist here. */
  etc: string[];
  /** Nice value of the run (TOOLS_NICE, lower for a key's further runs: priority.ts `fairNice`); 0 or unset: the service's own priority. */
  nice?: number;
}

/** The host files of `TOOL_ETC` that exist, for {@link ToolJail.etc}. */
export function presentEtc(exists: (p: string) => boolean): string[] {
  return TOOL_ETC.filter(exists);
}

/** The whole argv of one run: [nice → sh →] [sh → setpriv →] prlimit → bwrap → the tool. */
export function toolArgv(jail: ToolJail, argv: string[]): string[] {
  return atLowPriority(confinedArgv(jail, argv), jail.nice ?? 0);
}

/** The argv of one run at the service's priority: [sh → setpriv →] prlimit → bwrap → the tool. */
function confinedArgv(jail: ToolJail, argv: string[]): string[] {
  const l = jail.limits;
  const prlimit = prlimitArgs({ ...l, nofile: 256 });
  const bw = [
    // Without bwrap's second session: the runner spawns each run detached, a session of its own
    // with no controlling terminal (so nothing to push keystrokes into, which is what
    // `--new-session` guards against), and a second session would be a new scheduling group at
    // the service's priority, undoing TOOLS_NICE under autogroup scheduling (priority.ts).
    ...bwrapBase(jail.bwrapBin ?? '', 'tools').filter((a) => a !== '--new-session'),
    '--remount-ro', '/dev',
    '--size', String(TMPFS_MB * 1024 * 1024), '--tmpfs', '/tmp',
  ];
  for (const f of jail.etc) bw.push('--ro-bind', f, f);
  for (const p of jail.roPaths) bw.push('--ro-bind', p, p);
  for (const d of jail.dirs) bw.push('--bind', d, d);
  bw.push('--remount-ro', '/', '--chdir', jail.dirs[0] ?? '/tmp', '--clearenv');
  for (const [k, v] of Object.entries(jail.env)) bw.push('--setenv', k, v);
  if (jail.seccomp) bw.push('--seccomp', '3');
  bw.push('--', ...argv);
  // Degraded (no usable bubblewrap): the environment is still cleared by the spawn, the uid, the
  // cgroup and the rlimits still hold; only the namespaces and the file-system view are missing.
  const inner = jail.bwrapBin === null ? argv : bw;
  if (!jail.ids) return [...prlimit, ...inner];
  // A root shell joins the run's cgroup (when there is one) and sets a umask that leaves files
  // readable to the tool group, then setpriv drops to the run's uid and every capability.
  const script = `${jail.cgroup ? 'echo $$ > "$0/cgroup.procs" || exit 125; ' : ''}umask 007; exec "$@"`;
  const drop = ['/usr/bin/setpriv', `--reuid=${jail.ids.uid}`, `--regid=${jail.ids.gid}`, '--clear-groups', '--'];
  return ['/bin/sh', '-c', script, jail.cgroup ?? 'tools', ...drop, ...prlimit, ...inner];
}
