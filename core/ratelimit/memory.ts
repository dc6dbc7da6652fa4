/** In-process fixed-window counters, for a single instance on the embedded store. */
import { decide, WINDOW_MS, type RateDecision, type RateLimiter } from './types.js';

/** Rate limiter kept in memory. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly sweeper = setInterval(() => this.sweep(), WINDOW_MS);

  constructor() {
    this.sweeper.unref();
  }

  async hit(keyId: string, limit: number): Promise<RateDecision> {
    const now = Date.now();
    const start = now - (now % WINDOW_MS);
    let w = this.windows.get(keyId);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(keyId, w);
    }
    w.count += 1;
    return decide(w.count, limit, start + WINDOW_MS - now);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, w] of this.windows) if (w.start + WINDOW_MS <= now) this.windows.delete(k);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
