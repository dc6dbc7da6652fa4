/** A small closed-loop HTTP load generator (undici pool) that reports throughput and latency percentiles. */
import { Pool } from 'undici';

/** Result of one load run. */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
}

/** Percentile of a sorted array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Runs `connections` loops sending the request for `seconds` and measures them. `headers` may be
 * a function, called per request (e.g. to spread the load over many API keys).
 */
export async function load(origin: string, opts: { connections: number; seconds: number; method: string; path: string; headers: Record<string, string> | (() => Record<string, string>); body?: string; expect?: number }): Promise<LoadResult> {
  const headersOf = typeof opts.headers === 'function' ? opts.headers : () => opts.headers as Record<string, string>;
  const pool = new Pool(origin, { connections: opts.connections, pipelining: 1 });
  const lat: number[] = [];
  let errors = 0;
  const end = performance.now() + opts.seconds * 1000;
  const started = performance.now();
  const loop = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        const res = await pool.request({ method: opts.method as 'POST', path: opts.path, headers: headersOf(), body: opts.body });
        await res.body.arrayBuffer();
        if (opts.expect !== undefined && res.statusCode !== opts.expect) errors += 1;
      } catch {
        errors += 1;
      }
      lat.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, loop));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  lat.sort((a, b) => a - b);
  return { requests: lat.length, errors, seconds, rps: lat.length / seconds, p50: percentile(lat, 50), p95: percentile(lat, 95), p99: percentile(lat, 99) };
}

/** Creates an API key with room for any benchmark (credits and rate limit far above what a run uses). */
export async function createBenchKey(serviceUrl: string, adminToken: string, credits = 1_000_000_000): Promise<string> {
  const res = await fetch(`${serviceUrl}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', credits, rateLimitPerMinute: 1_000_000 }),
  });
  if (!res.ok) throw new Error(`creating the bench key failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}
