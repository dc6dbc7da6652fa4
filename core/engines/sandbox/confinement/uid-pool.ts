/**
 * A bounded pool of sandbox slots, each with its own uid (issue 6: "start sandboxes
 * unprivileged, one uid per concurrent run", because RLIMIT_NPROC counts per uid). Callers wait
 * in a bounded queue, served key by key (issue 24: first come first served let one key's backlog
 * of tool runs hold every other key's first run); past it the service answers 429.
 */
import { BusyError } from '../../../errors.js';
import { FairQueue } from '../../../util/fair-queue.js';

/** One leased slot: its uid/gid (or null when the service is not root and runs as itself). */
export interface UidLease {
  readonly slot: number;
  readonly uid: number | null;
  release(): void;
}

/** The public 429 text when every sandbox is busy and the queue is full. */
export const BUSY_MESSAGE = 'The code sandbox is busy. Please try again later.';

interface Waiter {
  /** The API key the run is for ('' when none: those share one turn). */
  owner: string;
  resolve(lease: UidLease): void;
  reject(err: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** Hands out slots 0..size-1; a freed slot goes to the waiting key holding the fewest. */
export class UidPool {
  private readonly free: number[];
  private readonly waiting = new FairQueue<Waiter>();
  private closed = false;

  constructor(
    readonly size: number,
    private readonly uidBase: number | null,
    private readonly maxQueue: number,
  ) {
    this.free = Array.from({ length: size }, (_, i) => i);
  }

  /** Slots leased now. */
  get leased(): number {
    return this.size - this.free.length;
  }

  /** Callers waiting for a slot. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Waits for a free slot; rejects with `BusyError` when the queue is full. `owner`: the API key the run is for. */
  acquire(signal?: AbortSignal, owner = ''): Promise<UidLease> {
    if (this.closed) return Promise.reject(new BusyError(BUSY_MESSAGE));
    const slot = this.free.shift();
    if (slot !== undefined) return Promise.resolve(this.grant(slot, owner));
    if (this.waiting.length >= this.maxQueue) return Promise.reject(new BusyError(BUSY_MESSAGE));
    return new Promise<UidLease>((resolve, reject) => {
      const waiter: Waiter = { owner, resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          this.waiting.remove(waiter);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiting.push(waiter);
    });
  }

  /** A free slot right now, or undefined (used for pre-started sandboxes, which never queue). */
  tryAcquire(): UidLease | undefined {
    if (this.closed || this.waiting.length > 0) return undefined;
    const slot = this.free.shift();
    return slot === undefined ? undefined : this.grant(slot, '');
  }

  /** Leases a free slot at once, counted as held by `owner` (the fair queue's turns). */
  private grant(slot: number, owner: string): UidLease {
    this.waiting.push({ owner, resolve: () => {}, reject: () => {} });
    this.waiting.take();
    return this.lease(slot, owner);
  }

  private lease(slot: number, owner: string): UidLease {
    let released = false;
    return {
      slot,
      uid: this.uidBase === null ? null : this.uidBase + slot,
      release: () => {
        if (released) return;
        released = true;
        this.waiting.done(owner);
        const next = this.waiting.take();
        if (next) {
          if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
          next.resolve(this.lease(slot, next.owner));
        } else this.free.push(slot);
      },
    };
  }

  /** Rejects every waiter; later acquisitions fail. */
  close(): void {
    this.closed = true;
    for (const w of this.waiting.drain()) w.reject(new BusyError(BUSY_MESSAGE));
  }
}
