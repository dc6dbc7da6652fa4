/**
 * Requests each key has in progress on this instance (KEY_REQUESTS_IN_FLIGHT_MAX, issue 24): the
 * engines' own per-key shares are checked only once a body has been received and parsed, so one
 * key's flood of large bodies was received, parsed and refused for free while every other key
 * waited for the same CPU. The count is taken before the body is read.
 */

/** A request waiting for one of its key's places. */
type Waiter = (granted: boolean) => void;

/** Places per key, each key bounded by `max`, with at most `max` requests of a key waiting for one. */
export class KeyRequestCounts {
  private readonly inUse = new Map<string, number>();
  private readonly waiting = new Map<string, Set<Waiter>>();
  constructor(readonly max: number) {}

  /** Takes one of `key`'s places if it has one free; false otherwise. */
  take(key: string): boolean {
    const now = this.inUse.get(key) ?? 0;
    if (now >= this.max) return false;
    this.inUse.set(key, now + 1);
    return true;
  }

  /**
   * Waits up to `ms` for one of `key`'s places: true once one is handed over, false when the time
   * is up, `signal` aborts or `max` requests of the key are waiting already (at once: a key cannot
   * park more sockets here than it may have places).
   */
  wait(key: string, ms: number, signal: AbortSignal): Promise<boolean> {
    const queue = this.waiting.get(key) ?? new Set<Waiter>();
    if (queue.size >= this.max || signal.aborted) return Promise.resolve(false);
    this.waiting.set(key, queue);
    return new Promise<boolean>((resolve) => {
      const done: Waiter = (granted) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', gone);
        queue.delete(done);
        if (queue.size === 0 && this.waiting.get(key) === queue) this.waiting.delete(key);
        resolve(granted);
      };
      const gone = () => done(false);
      const timer = setTimeout(gone, ms);
      signal.addEventListener('abort', gone, { once: true });
      queue.add(done);
    });
  }

  /** Gives one place back to `key`: to its oldest waiting request if any, else freed (a key holding none is forgotten). */
  give(key: string): void {
    const next = this.waiting.get(key)?.values().next().value;
    if (next) return next(true);
    const left = (this.inUse.get(key) ?? 0) - 1;
    if (left > 0) this.inUse.set(key, left);
    else this.inUse.delete(key);
  }

  /** Places `key` holds now. */
  held(key: string): number {
    return this.inUse.get(key) ?? 0;
  }
}
