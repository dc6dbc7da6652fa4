/**
 * In-process wake-ups of this instance's job workers (issue 27: an idle service's CPU). pg-boss
 * workers find turns by polling the queue; each poll is a statement, and on the embedded store a
 * statement is WebAssembly work on the database thread, so four workers polling every second
 * were most of an idle instance's CPU. Every event of this instance that makes a turn claimable
 * wakes the workers itself instead: a turn queued now at once, a delayed turn (a job behind its
 * key's running limit, a claim still held) when its delay is up, a failed turn (pg-boss offers it
 * again) as soon as its failure is recorded. Polling then only catches what another instance
 * queued or pg-boss itself offers again (expired claims), so it can be rare (JOB_POLL_SECONDS).
 */

/** Slack after a delayed turn's start: pg-boss compares `start_after < now()` on the database's clock. */
const START_SLACK_MS = 25;
/** A wake-up that found the turn not yet due (clocks a few ms apart) is repeated once, this much later. */
const RECHECK_MS = 500;
const WAKES = 2;

/** Wakes the workers now or later; timers never keep the process alive and end with `stop`. */
export class WorkerWakeups {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  /** `notify` tells every worker of this instance to look at the queue now. */
  constructor(private readonly notify: () => void) {}

  /** Wakes the workers at once. */
  now(): void {
    if (!this.stopped) this.notify();
  }

  /**
   * Wakes the workers once a turn queued `delayMs` from now is due. A wake-up that reaches the
   * queue a moment before the database's clock passes the turn's start finds nothing, and the
   * worker would then sleep a whole poll interval: one more wake-up half a second later covers
   * that (a look that finds nothing is one cheap statement).
   */
  after(delayMs: number): void {
    if (this.stopped) return;
    let left = WAKES;
    const fire = (ms: number) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.now();
        if (--left > 0) fire(RECHECK_MS);
      }, ms);
      timer.unref();
      this.timers.add(timer);
    };
    fire(Math.max(0, delayMs) + START_SLACK_MS);
  }

  /** Cancels every pending wake-up; later calls do nothing. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
