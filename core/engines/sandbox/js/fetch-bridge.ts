/**
 * The host side of a sandboxed `fetch` (issue 6: "through the SSRF guard and size/time limits"):
 * a worker asks, the pool answers here with the caller's `fetch` (the plugin's guarded one) and
 * counts what the run fetched — in flight and bytes — where the code cannot reach, whatever the
 * worker's own count says (it may not be the worker speaking).
 */
import type { JsRunRequest, SandboxFetchRequest } from '../types.js';
import { MAX_FETCHES, parseFetch } from './protocol.js';

/** One response's limit, and all of a run's responses together. */
const FETCH_MAX_BYTES = 10 * 1024 * 1024;
const FETCH_RUN_MAX_BYTES = 32 * 1024 * 1024;

/** What the pool tracks of one run's fetches. */
export interface RunFetches {
  req: JsRunRequest;
  /** Fetches in flight, by the worker's fetch id. */
  fetches: Map<number, AbortController>;
  /** Response bytes fetched so far in this run. */
  fetchedBytes: number;
}

/** Serves one fetch of the run; resolves with the answer for the worker (`{status,…,body}` or `{error}`, JSON). */
export async function serveFetch(run: RunFetches, fid: number, raw: string): Promise<string> {
  const ac = new AbortController();
  const refused =
    run.fetches.size >= MAX_FETCHES
      ? `too many fetches in flight (the sandbox allows ${MAX_FETCHES})`
      : run.fetchedBytes >= FETCH_RUN_MAX_BYTES
        ? `this run already fetched ${FETCH_RUN_MAX_BYTES} bytes, the most one run may`
        : undefined;
  if (!refused) run.fetches.set(fid, ac);
  try {
    if (refused) throw new Error(refused);
    if (!run.req.fetch) throw new Error('network access is not available in this sandbox');
    const r = parseFetch(raw);
    const req: SandboxFetchRequest = { url: r.url, method: r.method, headers: r.headers, body: r.body === undefined ? undefined : Buffer.from(r.body, 'base64') };
    const out = await run.req.fetch(req, ac.signal);
    if (out.body.length > FETCH_MAX_BYTES) throw new Error(`response larger than ${FETCH_MAX_BYTES} bytes`);
    run.fetchedBytes += out.body.length;
    if (run.fetchedBytes > FETCH_RUN_MAX_BYTES) throw new Error(`responses of this run exceed ${FETCH_RUN_MAX_BYTES} bytes in all`);
    return JSON.stringify({ status: out.status, statusText: out.statusText, url: out.url, headers: out.headers, body: Buffer.from(out.body).toString('base64') });
  } catch (err) {
    return JSON.stringify({ error: err instanceof Error ? err.message : String(err) });
  } finally {
    if (!refused) run.fetches.delete(fid);
  }
}
