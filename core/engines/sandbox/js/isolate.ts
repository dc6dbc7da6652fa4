/**
 * The isolate side of a JavaScript worker (issue 6): one isolated-vm isolate with the bootstrap
 * (runtime.ts, from the files of isolate/) and the host callbacks it talks through — timers, fetch, randomness, URL
 * parsing — each carrying only strings, numbers and copied bytes. Everything the isolate asks of
 * the host is counted here, outside the code's reach: pending timers and fetches in flight are
 * refused past their caps whatever the isolate's own bookkeeping says (issue 6 audit, item 1).
 */
import { randomBytes } from 'node:crypto';
import ivm from 'isolated-vm';
import { MAX_FETCHES, MAX_TIMERS, type FromWorker } from './protocol.js';

/** Largest fetch request (JSON, body in base64) the worker forwards: a 10 MB body and headers. */
const MAX_FETCH_REQUEST_CHARS = 14 * 1024 * 1024;

/** Per-run host state the isolate's callbacks act on. */
export interface RunState {
  timers: Map<number, NodeJS.Timeout>;
  fetches: number;
  /** Fetch ids of this run still waiting for the pool's answer. */
  fids: Set<number>;
  firing: number;
  uncaught?: string;
  failure?: unknown;
  deadline: number;
  id: number;
  check(): void;
  /** Set while the main code is pending: looks for an await nothing can settle any more. */
  probe?: () => void;
}

export interface Prepared {
  isolate: ivm.Isolate;
  context: ivm.Context;
  fire: ivm.Reference<(id: number) => string>;
  take: ivm.Reference<() => string>;
  key: string;
  state: { current?: RunState };
}

/** Sends a message to the pool. */
export const send = (m: FromWorker) => process.send?.(m);
/** Fetches sent to the pool and not answered yet: fetch id → what to do with the answer. */
export const pendingFetches = new Map<number, (res: string) => void>();
let nextFetch = 1;

/**
 * A fresh isolate with the bootstrap `source` (see runtime.ts) evaluated and its host callbacks
 * wired to `state.current` (the run it serves); made ahead of the next run while the worker is idle.
 */
export async function prepare(source: string, memoryMb: number, maxLines: number, maxBytes: number): Promise<Prepared> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
  const context = await isolate.createContext();
  const holder: Prepared['state'] = {};
  const timer = new ivm.Callback((id: number, ms: number) => {
    const st = holder.current;
    if (st && st.timers.size >= MAX_TIMERS && !st.timers.has(id)) throw new RangeError(`Too many pending timers (the sandbox allows ${MAX_TIMERS})`);
    arm(holder, fireRef, id, ms);
  });
  const clear = new ivm.Callback((id: number) => {
    const st = holder.current;
    const t = st?.timers.get(id);
    if (t && st) {
      clearTimeout(t);
      st.timers.delete(id);
      st.check();
    }
  });
  // A fetch is two one-way calls: the isolate gets an id now, and the host calls `fetchDone`
  // with the answer later: strings and numbers, and the body as a copied ArrayBuffer.
  const fetchCb = new ivm.Callback((req: string) => {
    const fid = nextFetch++;
    const st = holder.current;
    if (!st) {
      setImmediate(() => void doneRef.apply(undefined, [fid, JSON.stringify({ error: 'fetch is not available now' })]).catch(() => undefined));
      return fid;
    }
    if (st.fetches >= MAX_FETCHES) throw new TypeError(`too many fetches in flight (the sandbox allows ${MAX_FETCHES})`);
    if (typeof req !== 'string' || req.length > MAX_FETCH_REQUEST_CHARS) throw new TypeError('the request body is larger than the sandbox allows (10 MB)');
    st.fetches++;
    st.fids.add(fid);
    pendingFetches.set(fid, (res) => {
      st.fids.delete(fid);
      st.firing++;
      const { head, body } = splitBody(res);
      doneRef
        .apply(undefined, [fid, head, body], { timeout: Math.max(1, st.deadline - Date.now()) })
        .then((r) => {
          if (typeof r === 'string' && r.startsWith('E')) st.uncaught ??= r.slice(1);
        })
        .catch((err: unknown) => {
          st.failure ??= err;
        })
        .finally(() => {
          st.fetches--;
          st.firing--;
          st.check();
        });
    });
    send({ t: 'fetch', id: st.id, fid, req });
    return fid;
  });
  const random = new ivm.Callback((n: number) => randomBytes(Math.max(0, Math.min(65536, n | 0))).toString('hex'));
  // WHATWG URL parsing by the host's parser; only strings cross, JSON comes back ('' = invalid).
  const url = new ivm.Callback((input: string, base?: string, field?: string, value?: string) => {
    try {
      const u = new URL(input, base);
      if (field) (u as unknown as Record<string, string>)[field] = value ?? '';
      const { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } = u;
      return JSON.stringify({ href, origin, protocol, username, password, host, hostname, port, pathname, search, hash });
    } catch {
      return '';
    }
  });
  const rt = (await context.evalClosure(source, [timer, clear, fetchCb, random, url, maxLines, maxBytes], {
    result: { reference: true },
  })) as ivm.Reference<{ fire: (id: number) => string; take: () => string; fetchDone: (fid: number, res: string, body?: ArrayBuffer) => string }>;
  const fireRef = (await rt.get('fire', { reference: true })) as ivm.Reference<(id: number) => string>;
  const take = (await rt.get('take', { reference: true })) as ivm.Reference<() => string>;
  const doneRef = (await rt.get('fetchDone', { reference: true })) as ivm.Reference<(fid: number, res: string, body?: unknown) => string>;
  rt.release();
  return { isolate, context, fire: fireRef, take, key: `${memoryMb}/${maxLines}/${maxBytes}`, state: holder };
}

/**
 * The pool's answer without its base64 body, and the body as a copy the isolate receives as a
 * plain ArrayBuffer: decoding megabytes of base64 inside the isolate (its `atob`) took seconds
 * and more than its whole heap for a 5 MB response.
 */
function splitBody(res: string): { head: string; body?: ivm.Copy<ArrayBuffer> } {
  try {
    const parsed = JSON.parse(res) as { body?: unknown };
    if (typeof parsed.body !== 'string') return { head: res };
    const bytes = Buffer.from(parsed.body, 'base64');
    parsed.body = undefined;
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    return { head: JSON.stringify(parsed), body: new ivm.ExternalCopy(buffer).copyInto({ release: true }) };
  } catch {
    return { head: res };
  }
}

function arm(holder: Prepared['state'], fire: ivm.Reference<(id: number) => string>, id: number, ms: number): void {
  const st = holder.current;
  if (!st) return;
  const handle = setTimeout(() => {
    st.timers.delete(id);
    st.firing++;
    const remaining = Math.max(1, st.deadline - Date.now());
    fire
      .apply(undefined, [id], { timeout: remaining })
      .then((r) => {
        if (typeof r === 'string' && r.startsWith('E')) st.uncaught ??= r.slice(1);
        else if (typeof r === 'string' && r.startsWith('R')) arm(holder, fire, id, Number(r.slice(1)));
      })
      .catch((err: unknown) => {
        st.failure ??= err;
      })
      .finally(() => {
        st.firing--;
        st.check();
      });
  }, ms);
  st.timers.set(id, handle);
}

