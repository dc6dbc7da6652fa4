/**
 * What bench:abuse watches while an attack runs: a victim key's calls in a loop, `/healthz`
 * polled every 100 ms, and the resident memory of every external tool and of the instance, read
 * from /proc (tools run under their own uids in their jails, but /proc shows them to root).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { percentile } from '../load.js';

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

/** Samples the tools' and the instance's memory every 100 ms and keeps the peaks. */
export class MemorySampler {
  private timer: NodeJS.Timeout | undefined;
  peaks = new Map<string, number>();
  instancePeak = 0;

  constructor(private readonly instancePid: number) {}

  /** Starts sampling with fresh peaks. */
  start(): void {
    this.peaks = new Map();
    this.instancePeak = 0;
    this.timer = setInterval(() => this.sample(), 100);
  }

  /** Stops sampling; the peaks stay readable. */
  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    this.instancePeak = Math.max(this.instancePeak, rssMb(this.instancePid) ?? 0);
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let comm: string;
      try {
        comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        continue;
      }
      if (!TOOLS.includes(comm)) continue;
      const rss = rssMb(pid);
      if (rss !== undefined) this.peaks.set(comm, Math.max(this.peaks.get(comm) ?? 0, rss));
    }
  }
}
