/**
 * Fixed-window counters in Redis, shared by every instance: one atomic script (INCR, PEXPIRE on
 * the first hit) per request, so the limit holds exactly across instances.
 */
import { Redis } from 'ioredis';
import { decide, WINDOW_MS, type RateDecision, type RateLimiter } from './types.js';

// The window starts at a key's first hit and ends when Redis expires the counter: Redis's own
// clock decides, so instances whose clocks differ still share one window per key.
const SCRIPT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if n == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`;

/** Rate limiter backed by `REDIS_URL`. */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;

  constructor(url: string, onError: (err: Error) => void = () => {}, private readonly prefix = 'cia:rl:') {
    // Auto-pipelining sends the scripts of all requests that reach this point in one event-loop
    // turn as one write: one syscall and one Redis wake-up per turn instead of one per request.
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false, enableAutoPipelining: true });
    this.redis.defineCommand('cia_hit', { numberOfKeys: 1, lua: SCRIPT });
    // ioredis reconnects by itself; its connection errors are reported once per outage, not per retry.
    let down = false;
    this.redis.on('error', (err: Error) => {
      if (!down) onError(err);
      down = true;
    });
    this.redis.on('ready', () => (down = false));
  }

  /** Fails when Redis is unreachable (boot, `/readyz`). */
  async ping(timeoutMs = 2000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('Redis did not answer')), timeoutMs)));
    try {
      await Promise.race([this.redis.ping(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async hit(keyId: string, limit: number): Promise<RateDecision> {
    const [n, msLeft] = (await (this.redis as any).cia_hit(`${this.prefix}${keyId}`, WINDOW_MS)) as [number, number];
    return decide(Number(n), limit, Number(msLeft));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
