/**
 * Bytes the instance receives and holds at once, across every request body and every URL
 * download (issue 18 finding 3, issue 24 finding 6: three concurrent 400 MB downloads once took
 * the process from 332 MB to 2.2 GB). One budget per service, shared by the body-limit hook and
 * the HTTP engine's downloads (BODY_BYTES_IN_FLIGHT_MAX).
 */
import { BusyError } from '../../errors.js';

/** The public 429 text when the bytes do not fit. */
export const BYTES_BUSY_TEXT = 'The service is receiving too much data at once. Please retry shortly.';

/** A count of bytes held, bounded by `max`. */
export class ByteBudget {
  private used = 0;
  constructor(readonly max: number) {}

  /** Takes `n` bytes if they fit; false otherwise. */
  take(n: number): boolean {
    if (this.used + n > this.max) return false;
    this.used += n;
    return true;
  }

  /** Gives `n` bytes back. */
  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }

  /** Bytes in use now (metrics). */
  get inUse(): number {
    return this.used;
  }
}

/** The 429 for bytes that do not fit. */
export function bytesBusy(): BusyError {
  return new BusyError(BYTES_BUSY_TEXT);
}
