/**
 * What bench:abuse watches while an attack runs: a victim key's calls in a loop, `/healthz`
 * polled every 100 ms, and the resident memory of every external tool and of the instance, read
 * from /proc (tools run under their own uids in their jails, but /proc shows them to root). Only
 * the instance's own tools count: on a shared machine other processes of the same names are not its.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { percentile } from '../load.js';
import { descendsFrom } from '../../core/engines/processes.js';

/** Latencies of one probe over a phase. */
export interface Latencies {
  count: number;
  errors: number;
  p50: number;
  p99: number;
}

/** Summarises latencies in ms. */
export function summarise(ms: number[], errors: number): Latencies {
  const sorted = [...ms].sort((a, b) => a - b);
  return { count: ms.length, errors, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** Calls `once` again and again until `stop` aborts, timing each call; a thrown or non-2xx call is an error. */
export async function loop(once: (signal: AbortSignal) => Promise<number>, stop: AbortSignal, pauseMs = 0): Promise<Latencies> {
  const ms: number[] = [];
  let errors = 0;
  while (!stop.aborted) {
    const t0 = performance.now();
    try {
      // `stop` alone bounds a call: the phase ends it (a composite signal per call would pile listeners on `stop`).
      const status = await once(stop);
      if (status < 200 || status >= 300) errors += 1;
    } catch {
      if (stop.aborted) break;
      errors += 1;
    }
    ms.push(performance.now() - t0);
    if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
  }
  return summarise(ms, errors);
}

/** Tools whose memory is reported, by their process name (`comm`). */
const TOOLS = ['soffice.bin', 'ffmpeg', 'ffprobe', 'tesseract', 'pdftoppm', 'pdftotext', 'pdfinfo', 'qpdf', 'gs', 'python3'];

/** Resident set of a process in MB, or undefined when it is gone. */
export function rssMb(pid: number | string): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where an instance's resident memory is (from /proc): anonymous memory (heaps, malloc arenas,
 * buffers) apart from mapped files (code, shared libraries), and its thread count, since a
 * worker thread kept alive keeps its heap.
 */
export function memoryParts(pid: number): string {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
    return `anonymous ${kb('RssAnon').toFixed(0)} MB, files ${kb('RssFile').toFixed(0)} MB, ${/Threads:\s+(\d+)/.exec(status)?.[1]} threads`;
  } catch {
    return 'gone';
  }
}

/**
 * The serving thread's scheduler counters (/proc/<pid>/task/<pid>/schedstat): time on a core and
 * time runnable but waiting for one, in ms. The wait is what a niced tool flood should shrink, and
 * unlike a latency it is read off the kernel, not timed across two loaded processes.
 */
export function servingThread(pid: number): { cpuMs: number; waitMs: number; slices: number } | undefined {
  try {
    const [run, wait, slices] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return { cpuMs: run! / 1e6, waitMs: wait! / 1e6, slices: slices! };
  } catch {
    return undefined;
  }
}

/** A process's nice value (stat field 19) and its session group's (autogroup), as `10/10`; `?` when unreadable. */
function priority(pid: string): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const nice = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16];
    let group = '-';
    try {
      group = / nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'))?.[1] ?? '-';
    } catch {
      // No autogroup in this kernel.
    }
    return `${nice}/${group}`;
  } catch {
    return '?';
  }
}

/**
 * BENCH_SAMPLER=scan: find the tools by reading every process of the host, as before. That took
 * 7 ms a sample (35 ms at worst) with 150 processes, every 100 ms, on the thread that times the
 * victim's calls and `/healthz`, and only while an attack ran: the bench's own stalls counted
 * against the attacks. By default the instance's process tree is walked instead.
 */
const scanAll = process.env.BENCH_SAMPLER === 'scan';

/**
 * Every process below `pid` (the kernel's per-thread `children` lists, walked down): what
 * `descendsFrom` finds by walking up, without reading each process of the host.
 */
function descendants(pid: number): string[] {
  const out: string[] = [];
  const walk = (p: string, depth: number) => {
    if (depth > 32) return;
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const tid of tids) {
      let kids: string[];
      try {
        kids = readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean);
      } catch {
        continue;
      }
      for (const kid of kids) {
        out.push(kid);
        walk(kid, depth + 1);
      }
    }
  };
  walk(String(pid), 0);
  return out;
}

/** What a sampled phase saw, as plain data (it crosses from the sampler's thread). */
export interface SamplerReport {
  peaks: Map<string, number>;
  priorities: Map<string, Set<string>>;
  instancePeak: number;
  thread: { cpuMs: number; waitMs: number; slices: number; phaseMs: number } | undefined;
}

/** Samples the tools' and the instance's memory every 100 ms and keeps the peaks. */
export class MemorySampler {
  private timer: NodeJS.Timeout | undefined;
  peaks = new Map<string, number>();
  /** Per tool, the priorities (nice/group nice) its processes were seen at. */
  priorities = new Map<string, Set<string>>();
  instancePeak = 0;
  private threadStart: { cpuMs: number; waitMs: number; slices: number } | undefined;
  private startedAt = 0;
  /** The serving thread over the last phase: CPU and run-queue wait in ms, times it got a core, and the phase's length. */
  thread: { cpuMs: number; waitMs: number; slices: number; phaseMs: number } | undefined;

  constructor(private readonly instancePid: number) {}

  /** Starts sampling with fresh peaks. */
  start(): void {
    this.peaks = new Map();
    this.priorities = new Map();
    this.instancePeak = 0;
    this.threadStart = servingThread(this.instancePid);
    this.startedAt = performance.now();
    this.timer = setInterval(() => this.sample(), 100);
  }

  /** Stops sampling; the peaks stay readable. */
  stop(): void {
    clearInterval(this.timer);
    const end = servingThread(this.instancePid);
    const start = this.threadStart;
    this.thread = end && start ? { cpuMs: end.cpuMs - start.cpuMs, waitMs: end.waitMs - start.waitMs, slices: end.slices - start.slices, phaseMs: performance.now() - this.startedAt } : undefined;
  }

  /** The last phase's findings. */
  report(): SamplerReport {
    return { peaks: this.peaks, priorities: this.priorities, instancePeak: this.instancePeak, thread: this.thread };
  }

  private sample(): void {
    this.instancePeak = Math.max(this.instancePeak, rssMb(this.instancePid) ?? 0);
    for (const pid of scanAll ? readdirSync('/proc') : descendants(this.instancePid)) {
      if (!/^\d+$/.test(pid)) continue;
      let comm: string;
      try {
        comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        continue;
      }
      if (!TOOLS.includes(comm) || (scanAll && !descendsFrom(Number(pid), this.instancePid))) continue;
      const rss = rssMb(pid);
      if (rss !== undefined) this.peaks.set(comm, Math.max(this.peaks.get(comm) ?? 0, rss));
      let seen = this.priorities.get(comm);
      if (!seen) this.priorities.set(comm, (seen = new Set()));
      if (seen.size < 4) seen.add(priority(pid));
    }
  }
}
