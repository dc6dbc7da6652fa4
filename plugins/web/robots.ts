/**
 * robots.txt for the crawler, one origin at a time (RFC 9309). What a fetch outcome means is
 * the RFC's: 2xx is the file to obey; 4xx means there is none, so everything is allowed
 * (§2.3.1.3); a 5xx or no answer at all means the file is "unreachable" and everything is
 * disallowed (§2.3.1.4), since the site may be telling crawlers to back off. Each origin's own
 * Crawl-delay spaces the requests made to that origin.
 */
import { InputError, PayloadTooLargeError, UpstreamError, type RunContext } from '../../core/sdk.js';
import { ROBOTS_AGENT, robotsParser } from './robots-match.js';

export { ROBOTS_AGENT } from './robots-match.js';

/** RFC 9309 §2.5: crawlers must parse at least 500 KiB; a file past the cap is not obeyed partially. */
const ROBOTS_MAX_BYTES = 512 * 1024;

/** What one origin's robots.txt allows, and how its requests are spaced. */
export interface OriginRules {
  readonly origin: string;
  /** Why nothing may be fetched from the origin (its robots.txt was unreachable), if so. */
  readonly unreachable?: string;
  /** The error behind `unreachable`, to report when it is the start origin. */
  readonly error?: unknown;
  allows(url: string): boolean;
  /** Crawl-delay in ms (capped), 0 when none. */
  readonly delayMs: number;
  /** The file's `Sitemap:` lines (absolute URLs), in order. */
  readonly sitemaps: string[];
  /** The file as read ('' when there is none), for checking many URLs in a worker. */
  readonly text: string;
  /**
   * Reserves the next request slot: resolves to the time the request may start. Slots are
   * handed out in order, each `delayMs` after the previous one, so concurrent workers on one
   * origin still keep its pace.
   */
  reserve(): number;
}

/** Reads `origin`'s robots.txt. A guard refusal (InputError) and the caller's abort are rethrown. */
export async function loadRobots(ctx: RunContext<unknown>, origin: string, opts: { timeoutMs: number; maxDelayMs: number }): Promise<OriginRules> {
  const robotsUrl = `${origin}/robots.txt`;
  let text = '';
  let unreachable: string | undefined;
  let error: unknown;
  try {
    const res = await ctx.engines.http.request({ url: robotsUrl, signal: ctx.signal, timeoutMs: Math.min(opts.timeoutMs, 10_000), maxBytes: ROBOTS_MAX_BYTES });
    if (res.status >= 200 && res.status < 300) text = res.text();
    else if (res.status >= 500) {
      unreachable = `its robots.txt answered HTTP ${res.status}`;
      error = new UpstreamError(`Failed to retrieve ${robotsUrl}: HTTP ${res.status}. The site cannot be crawled until its robots.txt can be read.`);
    }
  } catch (err) {
    if (err instanceof InputError || ctx.signal.aborted) throw err;
    unreachable = `its robots.txt could not be read (${err instanceof Error ? err.message : String(err)})`;
    // The size cap is ours, not a limit the caller broke: the site is what cannot be read (502).
    error = err instanceof PayloadTooLargeError ? new UpstreamError(`Failed to retrieve ${robotsUrl}: it is larger than ${ROBOTS_MAX_BYTES / 1024} KiB.`, { cause: err }) : err;
  }
  if (unreachable) ctx.log.debug({ robotsUrl, reason: unreachable }, 'robots.txt unreachable; the origin is not crawled');
  const robots = robotsParser(robotsUrl, text);
  const delaySec = unreachable ? 0 : Number(robots.getCrawlDelay(ROBOTS_AGENT) ?? 0);
  const delayMs = Number.isFinite(delaySec) && delaySec > 0 ? Math.min(delaySec * 1000, opts.maxDelayMs) : 0;
  let nextAt = 0;
  return {
    origin,
    unreachable,
    error,
    delayMs,
    sitemaps: unreachable ? [] : robots.getSitemaps().slice(0, 100),
    text,
    allows: (url) => !unreachable && robots.isAllowed(url, ROBOTS_AGENT) !== false,
    reserve() {
      const at = Math.max(Date.now(), nextAt);
      nextAt = at + delayMs;
      return at;
    },
  };
}

/** Rules for an origin that could not even be asked (a guard refusal): nothing is fetched there. */
export function refusedOrigin(origin: string, err: unknown): OriginRules {
  return { origin, unreachable: 'the address is refused', error: err, delayMs: 0, sitemaps: [], text: '', allows: () => false, reserve: () => Date.now() };
}

/** Waits for the origin's next request slot (its Crawl-delay); false when that is past `deadline`. */
export async function waitTurn(rules: OriginRules, signal: AbortSignal, deadline = Infinity): Promise<boolean> {
  if (rules.delayMs <= 0) return true;
  const at = rules.reserve();
  if (at >= deadline) return false;
  await sleep(at - Date.now(), signal);
  return !signal.aborted;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** How long a robots.txt read for a job's items is reused, in ms. */
const ROBOTS_TTL_MS = 5 * 60_000;
/** Most origins whose robots.txt is kept. */
const ROBOTS_CACHE_SIZE = 500;

/**
 * robots.txt per origin shared by the items of crawl jobs on this instance: each item is a
 * separate step, so without it every page would read its origin's file again, and the rules'
 * slot reservation is what keeps Crawl-delay between the items of one origin.
 */
export class RobotsCache {
  private readonly entries = new Map<string, { at: number; rules: Promise<OriginRules> }>();

  /** The origin's rules (read when absent or stale); a guard refusal gives rules that allow nothing. */
  get(ctx: RunContext<unknown>, origin: string, opts: { timeoutMs: number; maxDelayMs: number }): Promise<OriginRules> {
    const hit = this.entries.get(origin);
    if (hit && Date.now() - hit.at < ROBOTS_TTL_MS) return hit.rules;
    const rules = loadRobots(ctx, origin, opts).catch((err: unknown) => {
      // An abort belongs to the item that asked, not to the origin: the next item reads again.
      if (ctx.signal.aborted) {
        this.entries.delete(origin);
        throw err;
      }
      return refusedOrigin(origin, err);
    });
    this.entries.delete(origin);
    this.entries.set(origin, { at: Date.now(), rules });
    if (this.entries.size > ROBOTS_CACHE_SIZE) this.entries.delete(this.entries.keys().next().value!);
    return rules;
  }
}
