/**
 * One memory cgroup per sandbox uid (issue 6: memory limits per run). RLIMIT_AS bounds each
 * process, but a run may fork up to its process limit, each with that much memory: only a cgroup
 * bounds the run as a whole (and the tmpfs pages it writes). The groups live below the service's
 * own memory cgroup (cgroup v1, as on this machine's kind), so they also count against it.
 * A sandbox joins its group before anything of the run starts: a root shell writes its own pid
 * into the group, then execs setpriv to become the run's uid (see `spawnOsSandbox`).
 * Where the memory controller is not writable (not root, cgroup v2 without delegation, a
 * container) the runs keep their rlimits only and `available` is false.
 */
import { existsSync, readFileSync, readdirSync, rmdirSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../processes.js';

const V1_MEMORY = '/sys/fs/cgroup/memory';
const PREFIX = 'cia-sandbox-';

/** Our own memory cgroup directory under the v1 hierarchy, or undefined. */
function ownMemoryCgroup(): string | undefined {
  if (!existsSync(join(V1_MEMORY, 'cgroup.procs'))) return undefined;
  try {
    const line = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((l) => l.split(':')[1]?.split(',').includes('memory'));
    const path = line?.split(':').slice(2).join(':');
    return path === undefined ? undefined : join(V1_MEMORY, path);
  } catch {
    return undefined;
  }
}

/** Removes a group and its children (they must hold no processes). */
function removeTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) removeTree(join(dir, entry.name));
  }
  rmdirSync(dir);
}

/** Memory cgroups of the sandbox uids of one engine. */
export class SandboxCgroups {
  private readonly root: string | undefined;
  private readonly made = new Set<string>();
  private readonly limits = new Map<string, number>();

  /** `onError` hears of a group that could not be prepared (the run then has its rlimits only). */
  constructor(
    enabled: boolean,
    private readonly onError?: (err: unknown, dir: string) => void,
  ) {
    this.root = enabled ? SandboxCgroups.createRoot() : undefined;
  }

  private static createRoot(): string | undefined {
    const parent = ownMemoryCgroup();
    if (!parent) return undefined;
    try {
      // Groups of services that died without closing: nothing runs in them any more.
      for (const name of readdirSync(parent)) {
        const pid = Number(name.slice(PREFIX.length).split('-')[0]);
        if (name.startsWith(PREFIX) && Number.isInteger(pid) && !processAlive(pid)) {
          try {
            removeTree(join(parent, name));
          } catch {
            // Still busy or already gone.
          }
        }
      }
      const root = join(parent, `${PREFIX}${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
      mkdirSync(root);
      return root;
    } catch {
      return undefined;
    }
  }

  /** True when runs are confined by a memory cgroup. */
  get available(): boolean {
    return this.root !== undefined;
  }

  /**
   * The group of `uid` for one phase of a run, its memory limit set to `limitBytes`; undefined
   * when cgroups are unavailable. Each phase (`code`, `commands`) has its own group: files a
   * `commands` step leaves on the run's tmpfs stay charged to the group that wrote them, so
   * lowering one shared group's limit for the code phase could fail (EBUSY) and leave the code
   * without any bound.
   */
  prepare(uid: number | null, limitBytes: number, phase: 'code' | 'commands' = 'code'): string | undefined {
    if (!this.root || uid === null) return undefined;
    const dir = join(this.root, phase === 'code' ? `u${uid}` : `u${uid}-${phase}`);
    try {
      if (!this.made.has(dir)) {
        mkdirSync(dir, { recursive: true });
        this.made.add(dir);
      }
      if (this.limits.get(dir) !== limitBytes) {
        writeFileSync(join(dir, 'memory.limit_in_bytes'), String(limitBytes));
        this.limits.set(dir, limitBytes);
      }
      return dir;
    } catch (err) {
      this.onError?.(err, dir);
      return undefined;
    }
  }

  /** How many times the kernel's OOM killer has acted in the group (0 when unknown). */
  oomKills(dir: string | undefined): number {
    if (!dir) return 0;
    try {
      return Number(/^oom_kill (\d+)/m.exec(readFileSync(join(dir, 'memory.oom_control'), 'utf8'))?.[1] ?? 0);
    } catch {
      return 0;
    }
  }

  /** Removes the groups (called after every sandbox is stopped). */
  close(): void {
    if (!this.root) return;
    try {
      removeTree(this.root);
    } catch {
      // A process still inside: the next start removes the group.
    }
  }
}

/** An `onError` for {@link SandboxCgroups} that warns once per group directory. */
export function cgroupWarning(log: { warn(obj: object, msg: string): void }): (err: unknown, dir: string) => void {
  const told = new Set<string>();
  return (err, dir) => {
    if (told.has(dir)) return;
    told.add(dir);
    log.warn({ err, cgroup: dir }, 'memory cgroup could not be prepared: this run has its per-process limits only');
  };
}
