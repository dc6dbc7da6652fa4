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
