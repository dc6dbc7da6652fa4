/**
 * CPU time per request, by party, from /proc (Linux): on a small machine the load generator, the
 * server, the database and Redis share the cores, so a throughput ratio is only explained by
 * what each of them spends on a call. `bench:gateway` prints it beside every run.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime/stime (USER_HZ, 100 on Linux). */
const TICK_US = 10_000;

/** CPU microseconds so far of each party: `server` (one pid), `load` (this process), and every other process by name. */
export type CpuSnapshot = Map<string, number>;

function ticksOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

function nameOf(stat: string): string {
  return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
}

/** Reads every process's CPU time, the server's under `server` and ours under `load`. */
export function cpuSnapshot(serverPid: number): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const pid = Number(entry);
    const party = pid === serverPid ? 'server' : pid === process.pid ? 'load' : nameOf(stat);
    out.set(party, (out.get(party) ?? 0) + ticksOf(stat) * TICK_US);
  }
  return out;
}

/** µs of CPU per request of the parties that spent at least 1 µs a request between two snapshots, largest first. */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): [string, number][] {
  const rows: [string, number][] = [];
  for (const [party, us] of after) {
    const spent = (us - (before.get(party) ?? 0)) / requests;
    if (spent >= 1) rows.push([party, spent]);
  }
  return rows.sort((a, b) => b[1] - a[1]);
}

/** `server 160, postgres 105, load 50, …  total 340` (µs per request). */
export function formatCpu(rows: [string, number][]): string {
  const total = rows.reduce((sum, [, us]) => sum + us, 0);
  return `${rows.map(([p, us]) => `${p} ${us.toFixed(0)}`).join(', ')}; total ${total.toFixed(0)}`;
}

/** CPU microseconds so far (utime + stime + reaped children's) and parent of each process in a tree. */
type TreeSnapshot = Map<number, { ppid: number; us: number; name: string }>;

/**
 * The processes under one root (it included), read from /proc without reading every process's
 * stat each time: a scan of all ~200-400 processes of this shared machine costs 5-10 ms of CPU,
 * which a per-page figure would charge to the page. A process found outside the tree is not read
 * again (a pid is not reused within a bench run); only the tree's own and new pids are.
 */
export class ProcessTree {
  private readonly outside = new Set<number>();

  constructor(readonly rootPid: number) {}

  snapshot(): TreeSnapshot {
    const seen: TreeSnapshot = new Map();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      if (this.outside.has(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        seen.set(pid, { ppid: Number(f[1]), us: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_US, name: nameOf(stat) });
      } catch {
        // ended meanwhile
      }
    }
    const tree: TreeSnapshot = new Map();
    for (const [pid, p] of seen) {
      let q: number | undefined = pid;
      while (q && q > 1 && q !== this.rootPid && !tree.has(q)) q = seen.get(q)?.ppid;
      if (q === this.rootPid || (q !== undefined && tree.has(q))) tree.set(pid, p);
      else this.outside.add(pid);
    }
    return tree;
  }

  /** CPU seconds so far of the whole tree, reaped processes included. */
  cpuSeconds(): number {
    let us = 0;
    for (const p of this.snapshot().values()) us += p.us;
    return us / 1e6;
  }

  /**
   * CPU microseconds so far by role (issue 27: which process a page's CPU goes to): `node` for
   * the root, and for each Chromium under it `<tag>:<type>` (`browser`, `renderer`, `zygote`,
   * `gpu-process`, `utility(...)`), where `tag(userDataDir)` names the browser it belongs to.
   * Reaped children's time is in their parent's row, so a renderer that ended counts under its zygote.
   * A process that is not Chromium is named by its program: `<tag>:bwrap` or `<tag>:socat` inside
   * a browser's jail, `other:<program>` outside any browser (tsx's esbuild transform service,
   * which exists only when the service runs from source, was counted as `pool:browser` before).
   */
  cpuByRole(tag: (userDataDir: string) => string): CpuSnapshot {
    const tree = this.snapshot();
    const out: CpuSnapshot = new Map();
    for (const [pid, p] of tree) {
      // The step of its chain just below the root is the browser this process belongs to.
      let top = pid;
      for (let q = pid; q !== this.rootPid && tree.has(q); q = tree.get(q)!.ppid) top = q;
      if (pid === this.rootPid) continue;
      const dir = userDataDirOf(top);
      const chromium = /^chrom|^headless/.test(p.name);
      const role = dir || chromium ? `${tag(dir)}:${chromium ? chromiumTypeOf(pid) : p.name}` : `other:${p.name}`;
      out.set(role, (out.get(role) ?? 0) + p.us);
    }
    // The root by thread (main, libuv pool, V8's helpers, worker threads), and what it reaped.
    let own = 0;
    for (const tid of readdirSync(`/proc/${this.rootPid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${this.rootPid}/task/${tid}/stat`, 'utf8');
        const us = ticksOf(stat) * TICK_US;
        const name = Number(tid) === this.rootPid ? 'main' : nameOf(stat).replace(/[\d-]+$/, '').trim() || 'thread';
        own += us;
        out.set(`node:${name}`, (out.get(`node:${name}`) ?? 0) + us);
      } catch {
        // the thread ended meanwhile
      }
    }
    const root = tree.get(this.rootPid);
    if (root) out.set('node:reaped-or-ended', root.us - own);
    return out;
  }
}

const cmdlines = new Map<number, string[]>();
function cmdlineOf(pid: number): string[] {
  let args = cmdlines.get(pid);
  if (!args) {
    try {
      // Chromium rewrites its helpers' command lines as one space-separated string.
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
    } catch {
      args = [];
    }
    cmdlines.set(pid, args);
  }
  return args;
}

function userDataDirOf(pid: number): string {
  return cmdlineOf(pid).find((a) => a.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length) ?? '';
}

function chromiumTypeOf(pid: number): string {
  const args = cmdlineOf(pid);
  const type = args.find((a) => a.startsWith('--type='))?.slice('--type='.length);
  if (!type) return args.length ? 'browser' : 'gone';
  if (type === 'utility') return `utility(${args.find((a) => a.startsWith('--utility-sub-type='))?.split('.').pop() ?? '?'})`;
  return type;
}

/** The difference of two snapshots per request, in ms, largest first: `node 31.2, pool:renderer 20.1, …`. */
export function formatRoles(before: CpuSnapshot, after: CpuSnapshot, requests: number): string {
  const rows: [string, number][] = [];
  for (const [role, us] of after) {
    const ms = (us - (before.get(role) ?? 0)) / requests / 1000;
    if (ms >= 0.05) rows.push([role, ms]);
  }
  rows.sort((a, b) => b[1] - a[1]);
  return rows.map(([r, ms]) => `${r} ${ms.toFixed(1)}`).join(', ');
}
