/**
 * A bounded pool of sandbox slots, each with its own uid (issue 6: "start sandboxes
 * unprivileged, one uid per concurrent run", because RLIMIT_NPROC counts per uid). Callers wait
 * in a bounded queue; past it the service answers 429.
 */
import { BusyError } from '../../../errors.js';

/** One leased slot: its uid/gid (or null when the service is not root and runs as itself). */
export interface UidLease {
  readonly slot: number;
  readonly uid: number | null;
  release(): void;
}

/** The public 429 text when every sandbox is busy and the queue is full. */
export const BUSY_MESSAGE = 'The code sandbox is busy. Please try again later.';

/** Hands out slots 0..size-1, first come first served. */
export class UidPool {
  private readonly free: number[];
  private readonly waiting: { resolve(lease: UidLease): void; reject(err: unknown): void; signal?: AbortSignal; onAbort?: () => void }[] = [];
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

  /** Waits for a free slot; rejects with `BusyError` when the queue is full. */
  acquire(signal?: AbortSignal): Promise<UidLease> {
    if (this.closed) return Promise.reject(new BusyError(BUSY_MESSAGE));
    const slot = this.free.shift();
    if (slot !== undefined) return Promise.resolve(this.lease(slot));
    if (this.waiting.length >= this.maxQueue) return Promise.reject(new BusyError(BUSY_MESSAGE));
    return new Promise<UidLease>((resolve, reject) => {
      const waiter: (typeof this.waiting)[number] = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.waiting.indexOf(waiter);
          if (i >= 0) this.waiting.splice(i, 1);
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
    return slot === undefined ? undefined : this.lease(slot);
  }

  private lease(slot: number): UidLease {
    let released = false;
    return {
      slot,
      uid: this.uidBase === null ? null : this.uidBase + slot,
      release: () => {
        if (released) return;
        released = true;
        const next = this.waiting.shift();
        if (next) {
          if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
          next.resolve(this.lease(slot));
        } else this.free.push(slot);
      },
    };
  }

  /** Rejects every waiter; later acquisitions fail. */
  close(): void {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w.reject(new BusyError(BUSY_MESSAGE));
  }
}
