/**
 * Turns on the serving thread, one per key (issue 24, bench:abuse's made-up ids): refusing a
 * request (an unknown id's 404, a 429) is cheap, but a key that keeps several in flight had all
 * of them answered in the same pass of the event loop as another key's single call, which waited
 * behind every one. Now a key starts the work after authentication for at most one request per
 * pass: its further requests of that pass wait in the key's own line, and each pass (a
 * `setImmediate`, after the socket reads of the pass) lets one request of every waiting key go,
 * round-robin. Another key's call is then answered behind at most about one request of each other
 * key, however many those keep in flight; a key alone loses nothing but a pass per request, a few
 * microseconds when the instance has nothing else to do.
 */

/** A request waiting for its key's turn. */
type Go = () => void;

/** Per-key turns of one pass of the event loop. */
export class KeyTurns {
  /** Keys that have started a request in this pass. */
  private readonly started = new Set<string>();
  /** Each key's requests waiting for a later pass, oldest first (a key with none is absent). */
  private readonly waiting = new Map<string, Go[]>();
  private passScheduled = false;

  /**
   * Undefined when `key` may go on now (its first request of this pass); otherwise a promise that
   * resolves at the key's next turn.
   */
  take(key: string): Promise<void> | undefined {
    this.schedulePass();
    if (!this.started.has(key) && !this.waiting.has(key)) {
      this.started.add(key);
      return undefined;
    }
    return new Promise<void>((go) => {
      const line = this.waiting.get(key);
      if (line) line.push(go);
      else this.waiting.set(key, [go]);
    });
  }

  /** Requests of `key` waiting for a turn now. */
  queued(key: string): number {
    return this.waiting.get(key)?.length ?? 0;
  }

  private schedulePass(): void {
    if (this.passScheduled) return;
    this.passScheduled = true;
    setImmediate(this.nextPass);
  }

  /** A pass ends: every key gets a fresh turn, and each waiting key's oldest request takes it. */
  private readonly nextPass = (): void => {
    this.passScheduled = false;
    this.started.clear();
    for (const [key, line] of this.waiting) {
      const go = line.shift()!;
      if (line.length === 0) this.waiting.delete(key);
      this.started.add(key);
      go();
    }
    // The keys just let go hold this pass's turn; the next pass frees it (and serves the rest).
    if (this.started.size > 0) this.schedulePass();
  };
}
