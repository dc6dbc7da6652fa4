/**
 * How a turn ends its job: the store's final state, then the webhook's end event. Remembers the
 * jobs a turn here ended, since their runner claim ended with them (the turn must not release it).
 */
import type { JobStore } from './store.js';
import type { RunnerDeps } from './runner-deps.js';

/** Ends jobs for this instance's turns. */
export class JobEnds {
  /** Jobs a turn here has just ended (their runner claim ended with them). */
  private readonly endedHere = new Set<string>();

  /** `onEnded` runs for every job a turn here ended (to drop what was kept for it). */
  constructor(
    private readonly d: Pick<RunnerDeps, 'store' | 'emit'>,
    private readonly onEnded: (jobId: string) => void,
  ) {}

  /** Ends a job and tells its webhook; false when it had ended already (cancelled meanwhile). */
  async end(jobId: string, status: 'completed' | 'failed', fields: Parameters<JobStore['finish']>[2] = {}, webhook = true): Promise<boolean> {
    if (!(await this.d.store.finish(jobId, status, fields))) return false;
    await this.ended(jobId, status, webhook);
    return true;
  }

  /** After a turn here ended its job: its runner claim went with it; its webhook hears the end. */
  async ended(jobId: string, status: 'completed' | 'failed', webhook: boolean): Promise<void> {
    this.endedHere.add(jobId);
    this.onEnded(jobId);
    const job = webhook ? await this.d.store.get(jobId) : undefined;
    if (job) this.d.emit(job, status === 'completed' ? 'job.completed' : 'job.failed');
  }

  /** Completes the job when nothing is left to run (none pending, none running, or its limit reached); answers whether it did. */
  async completeIfDone(jobId: string, webhook: boolean): Promise<boolean> {
    if (!(await this.d.store.finishIfDone(jobId))) return false;
    await this.ended(jobId, 'completed', webhook);
    return true;
  }

  /** Whether a turn here ended `jobId` (forgotten once asked). */
  takeEnded(jobId: string): boolean {
    return this.endedHere.delete(jobId);
  }
}
