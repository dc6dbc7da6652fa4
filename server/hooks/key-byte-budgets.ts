/**
 * Each key's share of the bytes the instance receives at once (BODY_BYTES_PER_KEY_MAX, issue 24):
 * the instance-wide budget alone let one key's flood of large bodies hold all of it, so every
 * other key's upload was refused as BUSY meanwhile.
 */

/** Bytes held per key, each bounded by `max`. */
export class KeyByteBudgets {
  private readonly used = new Map<string, number>();
  constructor(readonly max: number) {}

  /** Takes `n` bytes of `key`'s share if they fit; false otherwise. */
  take(key: string, n: number): boolean {
    const now = this.used.get(key) ?? 0;
    if (now + n > this.max) return false;
    this.used.set(key, now + n);
    return true;
  }

  /** Gives `n` bytes back to `key`'s share (a key holding nothing is forgotten). */
  give(key: string, n: number): void {
    const left = (this.used.get(key) ?? 0) - n;
    if (left > 0) this.used.set(key, left);
    else this.used.delete(key);
  }

  /** Bytes `key` holds now. */
  held(key: string): number {
    return this.used.get(key) ?? 0;
  }
}
