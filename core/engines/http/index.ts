/**
 * The outbound HTTP engine (issue 4, design: "Engines kept warm"): undici with the SSRF guard at
 * connect time, redirects followed by hand so each hop is re-checked, a size cap counted on the
 * decoded body, an overall timeout, gzip/deflate/br and charset decoding.
 */
import { Agent, ProxyAgent, request as undiciRequest, type Dispatcher } from 'undici';
import type { Readable } from 'node:stream';
import { open, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import type { EngineOptions } from '../options.js';
import type { HttpDownload, HttpDownloadRequest, HttpEngine, HttpRequest, HttpResponse } from './types.js';
import { bytesBusy, type ByteBudget } from './byte-budget.js';
import { PayloadTooLargeError, ServiceError, UpstreamError } from '../../errors.js';
import { SsrfGuard, guardPolicyFromEnv, systemResolver, type Resolver } from './guard.js';
import { decodeText, decoderFor } from './decode.js';
import { deadline } from '../../util/deadline.js';

export { SsrfGuard, guardPolicyFromEnv } from './guard.js';
export { blockedReason, isPublicAddress } from './ip-ranges.js';

/** Defaults for user-facing fetches; a request may lower or raise them. */
const DEFAULTS = { timeoutMs: 15_000, maxBytes: 10 * 1024 * 1024, maxRedirects: 5 };
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'Mozilla/5.0 (compatible; ContentIntelligenceBot/0.1; +self-hosted)';

/** The HTTP engine plus what the browser engine shares with it. */
export interface HttpEngineImpl extends HttpEngine {
  readonly guard: SsrfGuard;
  close(): Promise<void>;
}

/** Creates the outbound HTTP engine from the environment (`ALLOW_PRIVATE_NETWORK`, `ALLOW_HOSTS`). */
export function createHttpEngine(opts: EngineOptions): HttpEngineImpl {
  return createHttpEngineWith({ env: opts.env, bytesInFlight: opts.bytesInFlight });
}

/** Same as `createHttpEngine`, with a substitutable resolver for tests of the guard. */
export function createHttpEngineWith(opts: { env: Record<string, string | undefined>; resolver?: Resolver; bytesInFlight?: ByteBudget }): HttpEngineImpl {
  const guard = new SsrfGuard(guardPolicyFromEnv(opts.env), opts.resolver ?? systemResolver);
  const pool = { keepAliveTimeout: 10_000, connections: 16 };
  // Two dispatchers: user URLs go through the guarded lookup; operator-configured provider URLs
  // (guard: false) use the system resolver, since a provider may legitimately live on a LAN.
  const guarded = new Agent({ ...pool, connect: { lookup: guard.lookup() } });
  const trusted = new Agent(pool);
  // One agent per proxy URL (the operator's WEB_PROXY_URL, in practice one).
  const proxies = new Map<string, ProxyAgent>();
  const viaProxy = (proxy: string) => {
    let agent = proxies.get(proxy);
    if (!agent) {
      // Plain http is forwarded (as browsers do; many proxies allow CONNECT to port 443 only), https tunnelled.
      agent = new ProxyAgent({ uri: proxy, proxyTunnel: false, ...pool });
      proxies.set(proxy, agent);
    }
    return agent;
  };

  /** Headers that carry credentials and are dropped when a redirect leaves the origin. */
  const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'x-access-key'];

  /** Sends `req`, following redirects, and hands the final response to `consume`. */
  async function send<T>(req: HttpRequest, consume: (res: Dispatcher.ResponseData, headers: Record<string, string>, url: URL, maxBytes: number) => Promise<T>): Promise<T> {
    let useGuard = req.guard !== false;
    const timeoutMs = req.timeoutMs ?? DEFAULTS.timeoutMs;
    const maxBytes = req.maxBytes ?? DEFAULTS.maxBytes;
    const maxRedirects = req.maxRedirects ?? DEFAULTS.maxRedirects;
    const caller = req.signal;
    const limit = deadline(caller, timeoutMs, () => new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    const signal = limit.signal;
    let url = useGuard ? guard.checkUrl(req.url) : new URL(req.url);
    let method = (req.method ?? (req.json !== undefined || req.body !== undefined ? 'POST' : 'GET')).toUpperCase();
    let body: string | Uint8Array | undefined = req.json !== undefined ? JSON.stringify(req.json) : req.body;
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, 'accept-encoding': 'gzip, deflate, br', ...lower(req.headers) };
    if (req.json !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';

    try {
      for (let hop = 0; ; hop++) {
        // IP literals never reach `lookup`, so they are checked here; names are checked at connect,
        // or here too when a proxy, not this process, will resolve them.
        if (useGuard && (req.proxy || isIP(url.hostname.replace(/^\[|\]$/g, '')))) await guard.checkHost(url.hostname);
        const res = await undiciRequest(url, {
          method: method as Dispatcher.HttpMethod,
          headers,
          body,
          signal,
          dispatcher: req.proxy ? viaProxy(req.proxy) : useGuard ? guarded : trusted,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        const location = res.headers.location;
        if (REDIRECTS.has(res.statusCode) && typeof location === 'string' && maxRedirects > 0) {
          res.body.resume();
          if (hop >= maxRedirects) throw new UpstreamError(`Failed to retrieve ${show(url)}: more than ${maxRedirects} redirects.`);
          const next = new URL(location, url);
          if (next.origin !== url.origin) {
            // Credentials were meant for the host we called, never for where it sends us; and a
            // trusted provider URL that redirects elsewhere is no longer trusted (SSRF guard on).
            for (const h of CREDENTIAL_HEADERS) delete headers[h];
            useGuard = true;
          }
          url = useGuard ? guard.checkUrl(next.href) : next;
          // 303 (and 301/302 after POST, as browsers do) turn into a body-less GET.
          if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
            delete headers['content-type'];
          }
          continue;
        }
        return await consume(res, flattenHeaders(res.headers), url, maxBytes);
      }
    } catch (err) {
      throw translate(err, url, limit.timedOut, timeoutMs, caller);
    } finally {
      limit.end();
    }
  }

  function request(req: HttpRequest): Promise<HttpResponse> {
    return send(req, async (res, headers, url, maxBytes) => {
      // A response that has no body by definition declares the length it would have had: not counted.
      const bodyless = res.statusCode === 204 || res.statusCode === 304 || req.method?.toUpperCase() === 'HEAD';
      const bytes = await readCapped(res.body, bodyless ? withoutLength(headers) : headers, maxBytes, url, opts.bytesInFlight);
      return {
        status: res.statusCode,
        url: url.href,
        headers,
        body: bytes,
        text: () => decodeText(bytes, headers['content-type']),
        json: <T>() => JSON.parse(decodeText(bytes, 'application/json')) as T,
      };
    });
  }

  function download(req: HttpDownloadRequest): Promise<HttpDownload> {
    return send(req, async (res, headers, url, maxBytes) => {
      // An error page is not the file asked for: it is not written (nor read on), only its status reported.
      if (res.statusCode >= 300) {
        discard(res.body);
        return { status: res.statusCode, url: url.href, headers, bytes: 0 };
      }
      const bytes = await writeCapped(res.body, headers, maxBytes, url, req.file, opts.bytesInFlight);
      return { status: res.statusCode, url: url.href, headers, bytes };
    });
  }

  return {
    guard,
    request,
    download,
    async close() {
      await Promise.allSettled([guarded.close(), trusted.close(), ...[...proxies.values()].map((p) => p.close())]);
    },
  };
}

/**
 * Stops reading `raw` and drops what is left. An undici body destroyed before it was read emits
 * an AbortError (even one that had fully arrived): with no listener that would be uncaught.
 */
function discard(raw: Readable): void {
  raw.on('error', () => {});
  raw.destroy();
}

/**
 * Bytes of one response counted in the in-flight budget while it is received (issue 24 finding 6:
 * every fetched byte counts, not only downloads to disk): a declared length is taken before any
 * byte is read, an undeclared or decoded one as it grows; whatever was taken is given back by `end`.
 */
function budgetHold(raw: Readable, headers: Record<string, string>, maxBytes: number, url: URL, budget: ByteBudget | undefined) {
  const declared = Number(headers['content-length']);
  const known = !headers['content-encoding'] && headers['content-length'] !== undefined && Number.isFinite(declared) && declared >= 0;
  if (known && declared > maxBytes) {
    discard(raw);
    throw responseTooLarge(url, maxBytes);
  }
  let held = 0;
  if (budget && known) {
    if (!budget.take(declared)) {
      discard(raw);
      throw bytesBusy();
    }
    held = declared;
  }
  return {
    /** Counts `size` bytes received so far; throws 413 past the cap, 429 when the budget cannot grow. */
    grow(size: number): void {
      if (size > maxBytes) throw responseTooLarge(url, maxBytes);
      if (budget && size > held) {
        if (!budget.take(size - held)) throw bytesBusy();
        held = size;
      }
    },
    end(): void {
      budget?.give(held);
      held = 0;
    },
  };
}

/**
 * Reads a body through its decompressor, stopping as soon as the decoded size passes the cap; its
 * bytes count in the in-flight budget while they are received.
 */
async function readCapped(raw: Readable, headers: Record<string, string>, maxBytes: number, url: URL, budget: ByteBudget | undefined): Promise<Uint8Array> {
  const hold = budgetHold(raw, headers, maxBytes, url, budget);
  const decoder = decoderFor(headers['content-encoding']);
  const stream: Readable = decoder ? raw.pipe(decoder) : raw;
  if (decoder) raw.on('error', (e) => decoder.destroy(e));
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).byteLength;
      hold.grow(size);
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    discard(raw);
    decoder?.destroy();
    throw err;
  } finally {
    hold.end();
  }
  const all = Buffer.concat(chunks, size);
  return new Uint8Array(all.buffer, all.byteOffset, all.byteLength);
}

/**
 * Writes a body through its decompressor straight into `file` as it arrives (issue 24 finding 6:
 * downloads were held whole in memory), stopping at the cap; the bytes count in the in-flight
 * budget while they are received: a declared length that does not fit is refused before any byte
 * is read (429 BUSY), and an undeclared one as soon as it stops fitting. A download that fails or
 * is stopped (the caller gone) leaves no partial file.
 */
async function writeCapped(raw: Readable, headers: Record<string, string>, maxBytes: number, url: URL, file: string, budget: ByteBudget | undefined): Promise<number> {
  const hold = budgetHold(raw, headers, maxBytes, url, budget);
  let out;
  try {
    out = await open(file, 'w', 0o640);
  } catch (err) {
    discard(raw);
    hold.end();
    throw err;
  }
  const decoder = decoderFor(headers['content-encoding']);
  const stream: Readable = decoder ? raw.pipe(decoder) : raw;
  if (decoder) raw.on('error', (e) => decoder.destroy(e));
  let size = 0;
  let done = false;
  try {
    for await (const chunk of stream) {
      const b = chunk as Buffer;
      size += b.byteLength;
      hold.grow(size);
      await out.write(b);
    }
    done = true;
    return size;
  } catch (err) {
    discard(raw);
    decoder?.destroy();
    throw err;
  } finally {
    await out.close();
    hold.end();
    if (!done) await rm(file, { force: true });
  }
}

/** Maps transport failures to catalogue errors (spec §7.1: 502 for an unreachable upstream). */
function translate(err: unknown, url: URL, timedOut: boolean, timeoutMs: number, caller?: AbortSignal): ServiceError | unknown {
  const guardError = findServiceError(err);
  if (guardError) return guardError;
  if (timedOut && !caller?.aborted) {
    return new UpstreamError(`Failed to retrieve ${show(url)}: no response within ${Math.round(timeoutMs / 100) / 10} s.`, { cause: err });
  }
  if (caller?.aborted) return caller.reason ?? err;
  const code = (err as { code?: string })?.code ?? (err as { cause?: { code?: string } })?.cause?.code;
  const why = code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'the host name does not resolve' : code === 'ECONNREFUSED' ? 'connection refused' : code ? code : 'network error';
  return new UpstreamError(`Failed to retrieve ${show(url)}: ${why}.`, { cause: err });
}

/** The guard's InputError may arrive wrapped by undici; find it in the cause chain. */
function findServiceError(err: unknown): ServiceError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ServiceError) return e;
  }
  return undefined;
}

/** A URL for messages: no query string or credentials, which may carry provider tokens. */
export function show(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** The error of a response past its size cap (the HTTP engine's and the browser's words). */
export function responseTooLarge(url: URL, maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`Failed to retrieve ${show(url)}: the response is larger than the ${formatBytes(maxBytes)} limit.`);
}

/** Decimal units, as file sizes are shown to users (and as credits count megabytes). */
function formatBytes(n: number): string {
  return n >= 1_000_000 ? `${Math.round(n / 100_000) / 10} MB` : `${Math.round(n / 1000)} KB`;
}

/** `headers` less Content-Length (the declared size of a body that is not sent). */
function withoutLength(headers: Record<string, string>): Record<string, string> {
  const { 'content-length': _, ...rest } = headers;
  return rest;
}

function lower(h: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) out[k.toLowerCase()] = v;
  return out;
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
