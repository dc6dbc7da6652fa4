/**
 * Requests each key has in progress on this instance (KEY_REQUESTS_IN_FLIGHT_MAX, issue 24): the
 * engines' own per-key shares are checked only once a body has been received and parsed, so one
 * key's flood of large bodies was received, parsed and refused for free while every other key
 * waited for the same CPU. The count is taken before the body is read.
 */

/** Places per key, each key bounded by `max`. */
export class KeyRequestCounts {
  private readonly inUse = new Map<string, number>();
  constructor(readonly max: number) {}

  /** Takes one of `key`'s places if it has one free; false otherwise. */
  take(key: string): boolean {
    const now = this.inUse.get(key) ?? 0;
    if (now >= this.max) return false;
    this.inUse.set(key, now + 1);
    return true;
  }

  /** Gives one place back to `key` (a key holding none is forgotten, so the map stays as small as the keys at work). */
  give(key: string): void {
    const left = (this.inUse.get(key) ?? 0) - 1;
    if (left > 0) this.inUse.set(key, left);
    else this.inUse.delete(key);
  }

  /** Places `key` holds now. */
  held(key: string): number {
    return this.inUse.get(key) ?? 0;
  }
}
