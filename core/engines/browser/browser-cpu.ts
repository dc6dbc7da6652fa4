/**
 * A CPU bound for each browser's process tree (issue 24: "CPU/wall limits" for every tool). A page
 * that spins (a miner, an endless loop in every frame) runs until its page timeout, and without a
 * bound its renderer and the compositor take every core the machine has, the service's event loop
 * and the other engines included. The bound is CFS bandwidth: `BROWSER_CPU_PERCENT` of one core
 * per 100 ms period, for the browser and all its children together.
 * - cgroup v2: `cpu.max` in the browser's memory group (browser-jail.ts; one group per process on
 *   v2), the `cpu` controller enabled on the groups above it first;
 * - cgroup v1 (`cpu` hierarchy mounted on its own): a group per uid below the service's own cpu
 *   group, `cpu.cfs_quota_us` / `cpu.cfs_period_us`, joined by the launcher like the memory one.
 * Where neither can be written, one warning says so and the browser has no CPU bound.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { processAlive } from '../processes.js';

const PREFIX = 'cia-browser-';
/** The CFS period, in µs (the kernel's default). */
export const CPU_PERIOD_US = 100_000;

/** Where the hierarchy and this process's membership are read (tests point them at a fake tree). */
export interface CpuCgroupPaths {
  mount: string;
  self: string;
}

const SYSTEM: CpuCgroupPaths = { mount: '/sys/fs/cgroup', self: '/proc/self/cgroup' };

/** The `cpu.max` / `cpu.cfs_quota_us` value for `percent` of one core. */
export function cpuQuotaUs(percent: number): number {
  return Math.max(1000, Math.round((percent / 100) * CPU_PERIOD_US));
}

const words = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split(/\s+/).filter(Boolean) : []);

/** The CPU groups of one process's browsers. */
export class BrowserCpuGroups {
  private readonly version: 1 | 2 | undefined;
  /** v1: the group the browsers' groups are made in (made on first use). */
  private v1Root: string | undefined;
  private readonly v1Parent: string | undefined;
  private warned = false;

  constructor(
    private readonly warn: (reason: string) => void,
    private readonly paths: CpuCgroupPaths = SYSTEM,
  ) {
    if (existsSync(join(paths.mount, 'cgroup.controllers'))) {
      this.version = 2;
      return;
    }
    const line = (() => {
      try {
        return readFileSync(paths.self, 'utf8')
          .split('\n')
          .find((l) => l.split(':')[1]?.split(',').includes('cpu'));
      } catch {
        return undefined;
      }
    })();
    const mount = ['cpu', 'cpu,cpuacct', 'cpuacct,cpu'].map((m) => join(paths.mount, m)).find((m) => existsSync(join(m, 'cgroup.procs')));
    if (line && mount) {
      this.version = 1;
      this.v1Parent = join(mount, line.split(':').slice(2).join(':'));
    }
  }

  /**
   * Bounds the group the launcher joins for `uid` to `percent` of a core and returns the folder
   * whose `cgroup.procs` it must join besides the memory group (v1), or undefined (v2: the memory
   * group itself is bounded; or no bound could be set, warned once).
   * `memoryGroup` is the browser's memory group when one was made.
   */
  prepare(uid: number, percent: number, memoryGroup: string | undefined): string | undefined {
    const quota = cpuQuotaUs(percent);
    try {
      if (this.version === 2) {
        if (!memoryGroup) throw new Error('cgroup v2 bounds the browser\'s CPU in its memory group, and it has none');
        // Each group above the browser's hands `cpu` down (the memory one's root and the service's group).
        for (const parent of [dirname(dirname(memoryGroup)), dirname(memoryGroup)]) {
          if (!words(join(parent, 'cgroup.subtree_control')).includes('cpu')) writeFileSync(join(parent, 'cgroup.subtree_control'), '+cpu');
        }
        writeFileSync(join(memoryGroup, 'cpu.max'), `${quota} ${CPU_PERIOD_US}`);
        return undefined;
      }
      if (this.version === 1) {
        this.v1Root ??= this.makeV1Root();
        const dir = join(this.v1Root, `u${uid}`);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
        writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quota));
        return dir;
      }
      throw new Error('no cgroup v2 and no cgroup v1 cpu hierarchy');
    } catch (err) {
      if (!this.warned) {
        this.warned = true;
        this.warn(err instanceof Error ? err.message : String(err));
      }
      return undefined;
    }
  }

  private makeV1Root(): string {
    const parent = this.v1Parent!;
    // Groups of services that died without closing: nothing runs in them any more.
    for (const name of readdirSync(parent)) {
      const pid = Number(name.slice(PREFIX.length).split('-')[0]);
      if (name.startsWith(PREFIX) && Number.isInteger(pid) && !processAlive(pid)) removeTree(join(parent, name));
    }
    const root = join(parent, `${PREFIX}${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
    mkdirSync(root);
    return root;
  }

  /** Removes the v1 groups (called once every browser has exited). */
  close(): void {
    if (this.v1Root) removeTree(this.v1Root);
  }
}

function removeTree(dir: string): void {
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeTree(join(dir, entry.name));
    rmdirSync(dir);
  } catch {
    // Still busy (a process inside) or already gone: the next start sweeps it.
  }
}
