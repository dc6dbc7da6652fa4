/**
 * The office pool's queue, served in turns across owners (issue 24, finding 1: one key could
 * hold eight conversions while another key's first waited behind all of them). An owner is the
 * caller's key; jobs without one share a single owner. A free worker goes to the owner running
 * the fewest conversions now and, among those, the one served longest ago, so a key's backlog
 * delays another key's first job by at most the conversion already running. Within one owner
 * jobs keep their arrival order.
 */

/** Anything queued, tagged with whom it is for. */
export interface Owned {
  owner: string;
}

/** Waiting jobs, what each owner runs now and when each was last served. */
export class TurnQueue<J extends Owned> {
  private readonly waiting: J[] = [];
  private readonly running = new Map<string, number>();
  /** Take number of each owner's last job; forgotten once it has nothing waiting or running. */
  private readonly lastServed = new Map<string, number>();
  private takes = 0;

  /** Jobs waiting. */
  get length(): number {
    return this.waiting.length;
  }

  /** Queues a job at the back of its owner's line. */
  push(job: J): void {
    this.waiting.push(job);
  }

  /** Drops a waiting job (aborted); false when it was not waiting. */
  remove(job: J): boolean {
    const i = this.waiting.indexOf(job);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    this.forget(job.owner);
    return true;
  }

  /** Takes the job the next free worker serves (see the module comment); its owner runs one more until {@link done}. */
  take(): J | undefined {
    let best = -1;
    let bestRunning = Infinity;
    let bestServed = Infinity;
    const seen = new Set<string>();
    for (let i = 0; i < this.waiting.length; i++) {
      const owner = this.waiting[i]!.owner;
      // The first job of each owner is its candidate: arrival order within an owner.
      if (seen.has(owner)) continue;
      seen.add(owner);
      const running = this.running.get(owner) ?? 0;
      const served = this.lastServed.get(owner) ?? -1;
      if (running < bestRunning || (running === bestRunning && served < bestServed)) {
        best = i;
        bestRunning = running;
        bestServed = served;
      }
    }
    if (best < 0) return undefined;
    const [job] = this.waiting.splice(best, 1);
    this.running.set(job!.owner, bestRunning + 1);
    this.lastServed.set(job!.owner, this.takes++);
    return job;
  }

  /** A job taken with {@link take} has ended. */
  done(owner: string): void {
    const n = (this.running.get(owner) ?? 0) - 1;
    if (n > 0) this.running.set(owner, n);
    else this.running.delete(owner);
    this.forget(owner);
  }

  /** Empties the queue (shutdown); returns what waited. */
  drain(): J[] {
    const all = this.waiting.splice(0);
    for (const j of all) this.forget(j.owner);
    return all;
  }

  /** An owner with nothing waiting or running starts afresh (the map stays as small as the queue). */
  private forget(owner: string): void {
    if (!this.running.has(owner) && !this.waiting.some((j) => j.owner === owner)) this.lastServed.delete(owner);
  }
}
