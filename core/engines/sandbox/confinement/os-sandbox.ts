/**
 * Starts one command inside an OS sandbox (issue 6, Python and `commands`): bubblewrap with every
 * namespace unshared (network only when asked), capabilities dropped, a read-only `/usr`, fresh
 * tmpfs `/tmp` and work dir, a read-only root and an empty environment, started as an unprivileged
 * uid (set by the spawn itself: setgid, setgroups(0), setuid, which also drops every capability)
 * with rlimits from `prlimit` or from the program inside. Started by root the sandbox would be
 * host root in disguise and RLIMIT_NPROC would not hold (measured in issue 6), hence the uid drop.
 * Inside, no new user namespaces can be made (`--disable-userns`), `/dev` is read-only with a
 * small `/dev/shm`, and a seccomp filter (seccomp.ts) refuses the kernel interfaces code never needs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { seccompProgram } from './seccomp.js';
import { bwrapBase, prlimitArgs } from './bwrap-base.js';
import { atLowPriority } from '../../tools/priority.js';

/** Size of the sandbox's `/dev/shm` (POSIX semaphores and shared memory of multiprocessing). */
export const DEV_SHM_MB = 16;

/** Resource limits applied with prlimit before bubblewrap starts (or by the program inside). */
export interface OsLimits {
  /** Processes and threads of the uid (RLIMIT_NPROC); omit when the uid is shared with the service. */
  nproc?: number;
  /** Address space in bytes (RLIMIT_AS); omit for tools that reserve large virtual ranges (node, esbuild). */
  asBytes?: number;
  /** Largest file in bytes (RLIMIT_FSIZE). */
  fsizeBytes: number;
  /** Open files (RLIMIT_NOFILE). */
  nofile: number;
  /** CPU seconds (RLIMIT_CPU), a backstop behind the wall-clock kill. */
  cpuSeconds: number;
}

/** What to run and how it is confined. */
export interface OsSandboxSpec {
  bwrapBin: string;
  /** Unprivileged uid/gid to run as; null when the service itself is not root. */
  uid: number | null;
  /** The command inside the sandbox (absolute path first). */
  argv: string[];
  /** Bind TLS roots for package installs (the network itself only comes through the egress proxy). */
  network: boolean;
  /** The work dir `/work`: a fresh tmpfs, or a host directory owned by `uid`. */
  work: { tmpfsMb: number } | { hostDir: string };
  tmpfsMb: number;
  env: Record<string, string>;
  /** Applied with prlimit around bwrap; omit when the program inside sets them itself (Python runner). */
  limits?: OsLimits;
  /** Extra read-only binds `[hostPath, sandboxPath]` (e.g. the esbuild binary). */
  roBinds?: [string, string][];
  /** Extra read-write binds `[hostPath, sandboxPath]` (the egress proxy socket). */
  binds?: [string, string][];
  /** Open a fourth pipe (fd 3) for a structured result. */
  resultFd?: boolean;
  /**
   * Make fd 3 a Node IPC channel (JSON serialization) instead of stdio pipes: stdin and stdout
   * are ignored, stderr is a pipe. For the JavaScript workers, whose only way out is this channel.
   */
  ipc?: boolean;
  /** Memory cgroup directory the sandbox joins before it starts (see `SandboxCgroups`). */
  cgroup?: string;
  /**
   * Nice value the sandbox starts at, its session's scheduling group too (`CODE_NICE`,
   * ../run-priority.ts); 0 or unset: the service's priority.
   */
  nice?: number;
}

/** True when this process can start sandboxes under other uids. */
export function canSwitchUid(): boolean {
  return typeof process.geteuid === 'function' && process.geteuid() === 0;
}

/** The fd of the child that carries the seccomp program to bwrap: the one after the stdio fds. */
function seccompFd(spec: OsSandboxSpec): number {
  return spec.resultFd || spec.ipc ? 4 : 3;
}

/** Builds the full argv: [prlimit →] bwrap → command (`seccomp`: pass the filter on its fd). */
export function sandboxArgv(spec: OsSandboxSpec, seccomp = false): string[] {
  const l = spec.limits;
  const prlimit = l ? prlimitArgs(l) : [];
  const bw = [
    // Every namespace, network included: even `commands` only get out through the egress proxy.
    // Without bwrap's second session, as the tools' jail: the sandbox is spawned detached, a
    // session of its own with no controlling terminal (nothing to push keystrokes into, which is
    // what `--new-session` guards against), and a second session would be a new scheduling group
    // at the service's priority, undoing CODE_NICE under autogroup scheduling (../run-priority.ts).
    ...bwrapBase(spec.bwrapBin, 'sandbox').filter((a) => a !== '--new-session'),
    // `--dev` is a tmpfs of its own that the read-only root does not cover: bound /dev/shm, then
    // make the rest of /dev read-only.
    '--size', String(DEV_SHM_MB * 1024 * 1024), '--tmpfs', '/dev/shm',
    '--remount-ro', '/dev',
    '--size', String(spec.tmpfsMb * 1024 * 1024), '--tmpfs', '/tmp',
  ];
  if (spec.network) {
    // TLS roots for package installs; names are resolved by the egress proxy on the host.
    for (const f of ['/etc/ssl', '/etc/ca-certificates']) {
      bw.push('--ro-bind-try', f, f);
    }
  }
  for (const [host, inside] of spec.roBinds ?? []) bw.push('--ro-bind', host, inside);
  for (const [host, inside] of spec.binds ?? []) bw.push('--bind', host, inside);
  if ('hostDir' in spec.work) bw.push('--bind', spec.work.hostDir, '/work');
  else bw.push('--size', String(spec.work.tmpfsMb * 1024 * 1024), '--tmpfs', '/work');
  // The root itself is a tmpfs made by bwrap: make it read-only so only /work and /tmp take writes.
  bw.push('--remount-ro', '/', '--chdir', '/work', '--clearenv');
  const env = spec.ipc ? { ...spec.env, NODE_CHANNEL_FD: '3', NODE_CHANNEL_SERIALIZATION_MODE: 'json' } : spec.env;
  for (const [k, v] of Object.entries(env)) bw.push('--setenv', k, v);
  if (seccomp) bw.push('--seccomp', String(seccompFd(spec)));
  bw.push('--', ...spec.argv);
  return [...prlimit, ...bw];
}

/** Spawns the sandbox in its own process group; stdio are pipes (plus fd 3 when asked). */
export function spawnOsSandbox(spec: OsSandboxSpec): ChildProcess {
  // No new sessions inside: one would be a scheduling group of its own, out of CODE_NICE.
  const program = seccompProgram({ sessions: false });
  const child = startSandbox(spec, program !== undefined);
  if (program) {
    const fd = child.stdio[seccompFd(spec)] as Writable | null;
    fd?.on('error', () => undefined);
    fd?.end(program);
  }
  return child;
}

function startSandbox(spec: OsSandboxSpec, seccomp: boolean): ChildProcess {
  const argv = sandboxArgv(spec, seccomp);
  // The nice prefix runs first, before the cgroup shell and the uid drop: the session's group is
  // written while still root, and the jail is asked for nothing (it execs away, no process stays).
  const low = (a: string[]) => atLowPriority(a, spec.nice ?? 0);
  const stdio: ('pipe' | 'ignore' | 'ipc')[] = spec.ipc ? ['ignore', 'ignore', 'pipe', 'ipc'] : spec.resultFd ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'];
  if (seccomp) stdio.push('pipe');
  const serialization = spec.ipc ? ({ serialization: 'json' } as const) : {};
  if (spec.uid !== null && spec.cgroup) {
    // A root shell moves itself into the run's cgroup, then setpriv drops to the run's uid (and
    // with it every capability) before the launchers start: nothing of the run is ever outside.
    const [bin, ...args] = low([
      '/bin/sh', '-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', spec.cgroup,
      '/usr/bin/setpriv', `--reuid=${spec.uid}`, `--regid=${spec.uid}`, '--clear-groups', '--', ...argv,
    ]);
    return spawn(bin!, args, { stdio, ...serialization, detached: true, env: { PATH: '/usr/bin:/bin' } });
  }
  const [bin, ...args] = low(argv);
  return spawn(bin!, args, {
    stdio,
    ...serialization,
    detached: true,
    // The launchers themselves get no secrets either: bwrap clears the environment anyway.
    env: { PATH: '/usr/bin:/bin' },
    // libuv switches gid, clears supplementary groups and switches uid before exec; bwrap then
    // sets no_new_privs and drops capabilities inside its user namespace.
    ...(spec.uid !== null ? { uid: spec.uid, gid: spec.uid } : {}),
  });
}

/**
 * Kills the sandbox and everything it started: the process group, then (when runs have their
 * own uid) every process of that uid, so nothing escapes through a new session.
 */
export async function killSandbox(child: ChildProcess | undefined, uid: number | null): Promise<void> {
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }
  if (uid === null) return;
  // kill(-1) as the run's uid reaches every process of that uid and nothing else. A fork loop can
  // slip a child past one sweep, so sweep again while any live process of the uid remains.
  for (let i = 0; i < 20; i++) {
    await new Promise<void>((resolve) => {
      const sweep = spawn('/usr/bin/kill', ['-KILL', '-1'], { stdio: 'ignore', env: { PATH: '/usr/bin:/bin' }, uid, gid: uid });
      sweep.on('error', () => resolve());
      sweep.on('close', () => resolve());
    });
    if (!(await hasLiveProcess(uid))) return;
  }
}

/** Whether a process of `uid` is still running (zombies, already dead, do not count). */
async function hasLiveProcess(uid: number): Promise<boolean> {
  for (const pid of await readdir('/proc')) {
    if (pid.charCodeAt(0) > 57) continue;
    try {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) === uid && !/^State:\s+[ZX]/m.test(status)) return true;
    } catch {
      // Gone while we looked.
    }
  }
  return false;
}
