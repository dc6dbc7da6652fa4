/**
 * A queue fair between owners, for every bounded engine queue: the JavaScript pool (issue 18,
 * item 9: one key with two sleeping runs held every worker of a 2-worker pool while other keys
 * waited), the local-tool gates, the office pool, the PDF threads and the browser pool (issue 24: one key's backlog
 * delayed every other key's first job). An owner is the API key a job is for; jobs without one share a single owner, which keeps
 * first-come-first-served order. A free slot goes to the earliest job of the owner holding the
 * fewest slots, and among owners holding equally few, to the one served least recently (so a
 * newcomer's first job waits for at most one job of a busy owner to end). The queue also says when
 * an owner waits below its fair share while another holds more than its own: the JavaScript pool
 * then starts a surge worker rather than make the waiting owner wait for the other's runs.
 */

/** Anything queued for a worker, tagged with whom it is for. */
export interface Owned {
  owner: string;
}

/** Waiting runs and the workers each owner holds. */
export class FairQueue<J extends Owned> {
  private readonly waiting: J[] = [];
  /** Workers held per owner (runs handed out and not yet done). */
  private readonly holding = new Map<string, number>();
  /** When each owner with work here was last served (a take counter). */
  private readonly served = new Map<string, number>();
  private takes = 0;

  /** Runs waiting. */
  get length(): number {
    return this.waiting.length;
  }

  /** Queues a run at the back. */
  push(job: J): void {
    this.waiting.push(job);
  }

  /** Drops a waiting run (aborted); false when it was not waiting. */
  remove(job: J): boolean {
    const i = this.waiting.indexOf(job);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    this.forget(job.owner);
    return true;
  }

  /** Workers `owner` holds now. */
  held(owner: string): number {
    return this.holding.get(owner) ?? 0;
  }

  /**
   * Takes the run a free worker should serve: the earliest of the owner holding the fewest
   * workers, the least recently served such owner first. Its owner is counted as holding one
   * more until {@link done}.
   */
  take(): J | undefined {
    let best = -1;
    let fewest = Infinity;
    let oldest = Infinity;
    for (let i = 0; i < this.waiting.length; i++) {
      const owner = this.waiting[i]!.owner;
      const n = this.held(owner);
      const last = this.served.get(owner) ?? -1;
      if (n < fewest || (n === fewest && last < oldest)) {
        fewest = n;
        oldest = last;
        best = i;
      }
    }
    if (best < 0) return undefined;
    const [job] = this.waiting.splice(best, 1);
    this.holding.set(job!.owner, fewest + 1);
    this.served.set(job!.owner, this.takes++);
    return job;
  }

  /** A run taken with {@link take} has ended: its owner holds one worker fewer. */
  done(owner: string): void {
    const n = this.held(owner) - 1;
    if (n > 0) this.holding.set(owner, n);
    else {
      this.holding.delete(owner);
      // An owner with nothing running or waiting is forgotten (its next job counts as a newcomer's).
      if (!this.waiting.some((j) => j.owner === owner)) this.served.delete(owner);
    }
  }

  /** Each owner's fair share of `workers`: an equal part for every owner running or waiting, at least one. */
  share(workers: number): number {
    const owners = new Set([...this.holding.keys(), ...this.waiting.map((j) => j.owner)]);
    return Math.max(1, Math.floor(workers / Math.max(1, owners.size)));
  }

  /** How many waiting owners hold less than their share of `workers` while another holds more than its own. */
  starved(workers: number): number {
    const share = this.share(workers);
    if (![...this.holding.values()].some((n) => n > share)) return 0;
    return new Set(this.waiting.filter((j) => this.held(j.owner) < share).map((j) => j.owner)).size;
  }

  /** Empties the queue (shutdown); returns what waited. */
  drain(): J[] {
    return this.waiting.splice(0);
  }

  /** Drops a waiting run (aborted) and forgets its owner when nothing of it is left. */
  private forget(owner: string): void {
    if (!this.holding.has(owner) && !this.waiting.some((j) => j.owner === owner)) this.served.delete(owner);
  }
}
