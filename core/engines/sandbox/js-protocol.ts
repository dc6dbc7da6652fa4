/**
 * Messages between the JavaScript sandbox pool (service process) and its worker processes. Only
 * strings, numbers and plain objects cross the IPC channel.
 */
import type { SandboxResult } from './types.js';

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
