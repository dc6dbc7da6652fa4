/**
 * The browser pool's queue (issue 24 "fair gates"): waiting jobs are served owner by owner (an
 * owner is the API key a job is for). A free slot goes to the owner holding the fewest slots and,
 * among those, the one served longest ago, so a key that queued many pages takes turns with a
 * key that arrives later instead of finishing its whole backlog first: another key's first page
 * waits at most for the pages already running.
 */

/** Anything queued, tagged with whom it is for. */
export interface Owned {
  owner: string;
}

/** Waiting jobs, slots held and turns taken per owner. */
export class TurnQueue<J extends Owned> {
  private readonly waiting: J[] = [];
  private readonly holding = new Map<string, number>();
  /** When each owner was last handed a slot (a counter; owners not present were never served). */
  private readonly lastTurn = new Map<string, number>();
  private turns = 0;

  /** Jobs waiting. */
  get length(): number {
    return this.waiting.length;
  }

  /** Queues a job. */
  push(job: J): void {
    this.waiting.push(job);
  }

  /** Drops a waiting job (aborted); false when it was not waiting. */
  remove(job: J): boolean {
    const i = this.waiting.indexOf(job);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    return true;
  }

  /** The job a free slot should serve; its owner holds one more slot until {@link done}. */
  take(): J | undefined {
    let best = -1;
    let bestHeld = Infinity;
    let bestTurn = Infinity;
    const seen = new Set<string>();
    for (let i = 0; i < this.waiting.length; i++) {
      const owner = this.waiting[i]!.owner;
      // Only an owner's earliest job competes: its order among its own jobs is first come, first served.
      if (seen.has(owner)) continue;
      seen.add(owner);
      const held = this.holding.get(owner) ?? 0;
      const turn = this.lastTurn.get(owner) ?? -1;
      if (held < bestHeld || (held === bestHeld && turn < bestTurn)) {
        best = i;
        bestHeld = held;
        bestTurn = turn;
      }
    }
    if (best < 0) return undefined;
    const [job] = this.waiting.splice(best, 1);
    this.holding.set(job!.owner, bestHeld + 1);
    this.lastTurn.set(job!.owner, this.turns++);
    return job;
  }

  /** A job handed out by {@link take} has ended. */
  done(owner: string): void {
    const n = (this.holding.get(owner) ?? 0) - 1;
    if (n > 0) this.holding.set(owner, n);
    else {
      this.holding.delete(owner);
      // An owner with nothing running or waiting leaves no trace behind.
      if (!this.waiting.some((j) => j.owner === owner)) this.lastTurn.delete(owner);
    }
  }

  /** Empties the queue (shutdown); returns what waited. */
  drain(): J[] {
    return this.waiting.splice(0);
  }
}
