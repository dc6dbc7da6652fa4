/**
 * Refused lookups are answered at a pace per key (issue 24, bench:abuse's made-up ids): a 404 (an
 * unknown capability, endpoint, job or path) and a 429 RATE_LIMITED are free for the caller but
 * each still costs the serving thread a whole request (about 0.15-0.3 ms: parsing, routing,
 * the error's answer, the usage row), so a key looping on them as fast as they come back took
 * most of the thread from every other key. Now each key may be answered KEY_REFUSALS_PER_SECOND
 * such refusals at once and that many a second after; a further one is the same answer, sent
 * when the key's next one is due. A client that loops on its refusals is slowed to that pace; a
 * client that mistypes an id, or probes a few, is answered at once, and the key's other calls
 * (successes, every other status) are never held. The default, 20, is far more refusals a second
 * than a client correcting its mistakes makes, and at about 0.3 ms each a looping key then takes
 * well under a tenth of the thread (bench:abuse: 40-50 ms of it a second, from 400-500 unpaced).
 *
 * What is paced is the answer, not the work: each refusal is still worked out when it arrives.
 * The pace lowers the work by lowering how often such a client sends, since a client waits for
 * its answers before resending on a connection.
 *
 * A rate-limited key loses nothing by the wait: nothing it sends can succeed before its window
 * resets. At most WAITING_MAX answers of a key wait (each holds a connection); past that they go
 * at once, as before. A client that hangs up while its answer waits frees its place in the pace.
 *
 * A root `onSend` hook: it runs before each lane's own (the usage row), so the row's latency is
 * what the client waited, and it sees every lane's answer once the key is known.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceSettings } from '../../core/config.js';

/** Answers of one key that may wait for their turn at once; past it they are sent without waiting. */
export const WAITING_MAX = 64;
/** How often, at most, keys whose pace has been idle long enough to be full again are forgotten. */
const SWEEP_MS = 10_000;

/** One key's pace: a bucket of refusals that refills at `perSecond`, up to `perSecond`. */
interface Pace {
  /** Refusals that may go now; negative: that many are already promised to waiting answers. */
  tokens: number;
  /** When `tokens` was last brought up to date (ms). */
  at: number;
  /** Answers of this key waiting now. */
  waiting: number;
}

/** Per-key pacing of refused answers. */
export class KeyRefusalPace {
  private readonly paces = new Map<string, Pace>();
  private sweptAt = 0;

  constructor(
    private readonly perSecond: number,
    private readonly waitingMax = WAITING_MAX,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Milliseconds a refusal to `key` waits before it is sent (0: at once). Each call takes one
   * refusal of the key's pace; `giveBack` returns it (the client left before its answer went).
   */
  take(key: string): number {
    const t = this.now();
    this.sweep(t);
    let p = this.paces.get(key);
    if (!p) {
      p = { tokens: this.perSecond, at: t, waiting: 0 };
      this.paces.set(key, p);
    }
    p.tokens = Math.min(this.perSecond, p.tokens + ((t - p.at) * this.perSecond) / 1000);
    p.at = t;
    if (p.tokens >= 1) {
      p.tokens -= 1;
      return 0;
    }
    // Too many waiting already: the answer goes now (and takes nothing, so the waiting ones keep their turns).
    if (p.waiting >= this.waitingMax) return 0;
    p.tokens -= 1;
    p.waiting += 1;
    return Math.ceil(((1 - (p.tokens + 1)) * 1000) / this.perSecond);
  }

  /** A waiting answer of `key` is sent (`left`: its client hung up first, so its refusal is given back). */
  done(key: string, left: boolean): void {
    const p = this.paces.get(key);
    if (!p) return;
    p.waiting = Math.max(0, p.waiting - 1);
    if (left) p.tokens += 1;
  }

  /** Keys tracked now (tests). */
  get size(): number {
    return this.paces.size;
  }

  /** Forgets keys with nothing waiting whose pace would be full again by now. */
  private sweep(t: number): void {
    if (t - this.sweptAt < SWEEP_MS) return;
    this.sweptAt = t;
    for (const [key, p] of this.paces) {
      if (p.waiting === 0 && p.tokens + ((t - p.at) * this.perSecond) / 1000 >= this.perSecond) this.paces.delete(key);
    }
  }
}

/** A refused lookup: a 404, or the rate limit's own 429 (not BUSY, whose requests already waited for a place). */
function isPacedRefusal(req: FastifyRequest, reply: FastifyReply): boolean {
  if (reply.statusCode === 404) return true;
  return reply.statusCode === 429 && req.call?.rate?.allowed === false;
}

/** Installs the pace on the root app; keyless answers (admin, console, files, health) are not paced. */
export function installKeyRefusalPace(app: FastifyInstance, settings: Pick<ServiceSettings, 'keyRefusalsPerSecond'>): void {
  const perSecond = settings.keyRefusalsPerSecond;
  if (perSecond === 0) return;
  const pace = new KeyRefusalPace(perSecond);
  app.addHook('onSend', (req, reply, payload, done) => {
    const keyId = req.call?.key?.id;
    if (!keyId || !isPacedRefusal(req, reply) || reply.raw.destroyed) return done(null, payload);
    const ms = pace.take(keyId);
    if (ms === 0) return done(null, payload);
    const go = (left: boolean) => {
      clearTimeout(timer);
      reply.raw.off('close', gone);
      pace.done(keyId, left);
      done(null, payload);
    };
    const gone = () => go(true);
    const timer = setTimeout(() => go(false), ms);
    reply.raw.once('close', gone);
  });
}
