/**
 * Fixed-window counters in Redis, shared by every instance: one atomic INCR (plus PEXPIRE on the
 * first hit) per request, so the limit holds exactly across instances.
 */
import { Redis } from 'ioredis';
import { decide, WINDOW_MS, type RateDecision, type RateLimiter } from './types.js';

const SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/** Rate limiter backed by `REDIS_URL`. */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;

  constructor(url: string, private readonly prefix = 'cia:rl:') {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.redis.defineCommand('cia_hit', { numberOfKeys: 1, lua: SCRIPT });
  }

  /** Fails fast at boot when Redis is unreachable. */
  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async hit(keyId: string, limit: number): Promise<RateDecision> {
    const now = Date.now();
    const start = now - (now % WINDOW_MS);
    const n = Number(await (this.redis as any).cia_hit(`${this.prefix}${keyId}:${start}`, WINDOW_MS + 1000));
    return decide(n, limit, start + WINDOW_MS - now);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
