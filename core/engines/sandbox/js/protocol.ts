/**
 * Messages between the JavaScript sandbox pool (service process) and its worker processes. Only
 * strings, numbers and plain objects cross the IPC channel.
 */
import type { SandboxResult } from '../types.js';

/** Pending timers one run may have on the host (the worker refuses more). */
export const MAX_TIMERS = 10_000;
/** Fetches one run may have in flight (the worker and the pool both refuse more). */
export const MAX_FETCHES = 16;

/** A run handed to a worker. */
export interface RunMessage {
  t: 'run';
  id: number;
  code: string;
  /** An ES module produced by esbuild from the code and the packages `commands` installed. */
  bundle?: string;
  timeoutMs: number;
  memoryMb: number;
  maxLines: number;
  maxBytes: number;
}

/** The answer to a worker's fetch: JSON `{status, statusText, url, headers, body(base64)}` or `{error}`. */
export interface FetchResultMessage {
  t: 'fetch-result';
  id: number;
  fid: number;
  res: string;
}

/** Parent → worker. */
export type ToWorker = RunMessage | FetchResultMessage;

/** Worker → parent. */
export type FromWorker =
  | { t: 'ready' }
  | { t: 'fetch'; id: number; fid: number; req: string }
  | { t: 'done'; id: number; result: SandboxResult };

/** A fetch request from a worker, checked for shape (the worker may not be what it was). */
export function parseFetch(raw: string): { url: string; method: string; headers: Record<string, string>; body?: string } {
  const r = JSON.parse(raw) as Record<string, unknown>;
  const headers: Record<string, string> = {};
  if (r.headers && typeof r.headers === 'object') for (const [k, v] of Object.entries(r.headers)) headers[k] = String(v);
  if (typeof r.url !== 'string' || typeof r.method !== 'string') throw new Error('malformed fetch request');
  return { url: r.url, method: r.method, headers, body: typeof r.body === 'string' ? r.body : undefined };
}
