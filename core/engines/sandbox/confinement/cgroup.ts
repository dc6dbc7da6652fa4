/**
 * One cgroup per sandbox uid and phase (issue 6: memory limits per run). RLIMIT_AS bounds each
 * process, but a run may fork up to its process limit, each with that much memory: only a cgroup
 * bounds the run as a whole (and the tmpfs pages it writes). Both hierarchies are supported:
 * - cgroup v1 (this machine's kind): groups below the service's own memory cgroup, with
 *   `memory.limit_in_bytes`;
 * - cgroup v2 (`/sys/fs/cgroup` is cgroup2): groups below the service's own cgroup with
 *   `memory.max`, `memory.swap.max` 0 and `pids.max`. v2 only lets a group hand controllers to
 *   its children when it holds no processes itself, so when the service's group does, the
 *   service (and only when every process there is the service or its descendant) first moves
 *   into a leaf `cia-service` of its own group — what systemd asks of services with `Delegate=`.
 * A sandbox joins its group before anything of the run starts: a root shell writes its own pid
 * into the group, then execs setpriv to become the run's uid (see `spawnOsSandbox`).
 * Where neither is writable (not root, no delegation, a container) the runs keep their rlimits
 * only, `available` is false and the engines log a warning.
 */
import { existsSync, readFileSync, readdirSync, rmdirSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { descendsFrom, processAlive } from '../../processes.js';

const PREFIX = 'cia-sandbox-';
const SERVICE_LEAF = 'cia-service';

/** Where the hierarchy and this process's membership are read (tests point them at a fake tree). */
export interface CgroupPaths {
  /** The cgroup mount, `/sys/fs/cgroup`. */
  mount: string;
  /** This process's `/proc/self/cgroup`. */
  self: string;
}

const SYSTEM: CgroupPaths = { mount: '/sys/fs/cgroup', self: '/proc/self/cgroup' };

interface Hierarchy {
  version: 1 | 2;
  /** The group the service's groups are made in. */
  parent: string;
}

/** Our own group: the v2 one when the mount is cgroup2, else the v1 memory one, else undefined. */
function ownGroup(paths: CgroupPaths): Hierarchy | undefined {
  let lines: string[];
  try {
    lines = readFileSync(paths.self, 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pathOf = (line: string | undefined) => line?.split(':').slice(2).join(':');
  if (existsSync(join(paths.mount, 'cgroup.controllers'))) {
    const path = pathOf(lines.find((l) => l.startsWith('0::')));
    return path === undefined ? undefined : { version: 2, parent: join(paths.mount, path) };
  }
  const v1 = join(paths.mount, 'memory');
  if (!existsSync(join(v1, 'cgroup.procs'))) return undefined;
  const path = pathOf(lines.find((l) => l.split(':')[1]?.split(',').includes('memory')));
  return path === undefined ? undefined : { version: 1, parent: join(v1, path) };
}

/** Removes a group and its children (they must hold no processes). */
function removeTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) removeTree(join(dir, entry.name));
  }
  rmdirSync(dir);
}

/** Groups of services that died without closing: nothing runs in them any more. */
function sweepStale(parent: string): void {
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
}

/** Whether `pid` is this process or one of its descendants. */
const ours = (pid: number): boolean => descendsFrom(pid, process.pid);

const words = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split(/\s+/).filter(Boolean) : []);

/** v2: makes sure `parent` hands memory (and pids) to its children; returns the controllers used. */
function delegateV2(parent: string): string[] {
  const wanted = words(join(parent, 'cgroup.controllers')).filter((c) => c === 'memory' || c === 'pids');
  if (!wanted.includes('memory')) throw new Error(`the memory controller is not delegated to ${parent}`);
  const enable = () => writeFileSync(join(parent, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' '));
  try {
    enable();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EBUSY') throw err;
    // Processes in the group itself: move the service's own (and only those) into a leaf.
    const pids = words(join(parent, 'cgroup.procs')).map(Number);
    if (!pids.every(ours)) throw new Error(`${parent} holds processes of others; cannot enable controllers`);
    mkdirSync(join(parent, SERVICE_LEAF), { recursive: true });
    for (const pid of pids) writeFileSync(join(parent, SERVICE_LEAF, 'cgroup.procs'), String(pid));
    enable();
  }
  return wanted;
}

/** Cgroups of the sandbox uids of one engine. */
export class SandboxCgroups {
  private readonly root: string | undefined;
  private readonly version: 1 | 2 | undefined;
  private readonly controllers: string[] = [];
  private readonly made = new Set<string>();
  private readonly limits = new Map<string, string>();

  /**
   * `onError` hears of a group that could not be prepared (the run then has its rlimits only);
   * `onUnavailable` hears once why no group can be made at all.
   */
  constructor(
    enabled: boolean,
    private readonly onError?: (err: unknown, dir: string) => void,
    onUnavailable?: (reason: string) => void,
    paths: CgroupPaths = SYSTEM,
  ) {
    if (!enabled) return;
    const own = ownGroup(paths);
    if (!own) {
      onUnavailable?.('no cgroup v2 and no cgroup v1 memory hierarchy');
      return;
    }
    try {
      sweepStale(own.parent);
      if (own.version === 2) this.controllers = delegateV2(own.parent);
      const root = join(own.parent, `${PREFIX}${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
      mkdirSync(root);
      if (own.version === 2) writeFileSync(join(root, 'cgroup.subtree_control'), this.controllers.map((c) => `+${c}`).join(' '));
      this.root = root;
      this.version = own.version;
    } catch (err) {
      onUnavailable?.(`cgroup v${own.version} at ${own.parent} is not writable: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** True when runs are confined by a memory cgroup. */
  get available(): boolean {
    return this.root !== undefined;
  }

  /** Which hierarchy is used (undefined when none). */
  get cgroupVersion(): 1 | 2 | undefined {
    return this.version;
  }

  /**
   * The group of `uid` for one phase of a run, its memory limit set to `limitBytes` (and on v2
   * its process count to `maxPids`); undefined when cgroups are unavailable. Each phase (`code`,
   * `commands`) has its own group: files a `commands` step leaves on the run's tmpfs stay charged
   * to the group that wrote them, so lowering one shared group's limit for the code phase could
   * fail (EBUSY) and leave the code without any bound.
   */
  prepare(uid: number | null, limitBytes: number, phase: 'code' | 'commands' = 'code', maxPids?: number): string | undefined {
    if (!this.root || uid === null) return undefined;
    const dir = join(this.root, phase === 'code' ? `u${uid}` : `u${uid}-${phase}`);
    try {
      if (!this.made.has(dir)) {
        mkdirSync(dir, { recursive: true });
        this.made.add(dir);
      }
      const key = `${limitBytes}/${maxPids ?? ''}`;
      if (this.limits.get(dir) !== key) {
        if (this.version === 1) writeFileSync(join(dir, 'memory.limit_in_bytes'), String(limitBytes));
        else {
          writeFileSync(join(dir, 'memory.max'), String(limitBytes));
          try {
            writeFileSync(join(dir, 'memory.swap.max'), '0');
          } catch {
            // No swap accounting here: the file is absent and there is no swap to turn off.
          }
          if (maxPids !== undefined && this.controllers.includes('pids')) writeFileSync(join(dir, 'pids.max'), String(maxPids));
        }
        this.limits.set(dir, key);
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
      const file = this.version === 2 ? 'memory.events' : 'memory.oom_control';
      return Number(/^oom_kill (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'))?.[1] ?? 0);
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

/** An `onUnavailable` for {@link SandboxCgroups}: one warning naming the engine and the reason. */
export function cgroupUnavailableWarning(log: { warn(obj: object, msg: string): void }, engine: string): (reason: string) => void {
  return (reason) => log.warn({ reason }, `no writable cgroup for ${engine}: each process keeps its rlimits, a run as a whole has no memory bound`);
}
