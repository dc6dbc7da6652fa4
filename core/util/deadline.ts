/**
 * A signal that fires when the caller's signal does or when a time limit passes, with everything
 * it holds (the timer, the listener on the caller) released by `end()`. Cheaper on hot paths than
 * AbortSignal.timeout + AbortSignal.any (about 40 µs a call), whose signals outlive the call.
 */
export interface Deadline {
  signal: AbortSignal;
  /** True once the time limit, not the caller, aborted the signal. */
  readonly timedOut: boolean;
  /** Clears the timer and stops listening to the caller; call when the work ends, however it ends. */
  end(): void;
}

/** Starts a deadline of `ms` on top of `caller`; `reason` is what the signal aborts with when the time is up. */
export function deadline(caller: AbortSignal | undefined, ms: number, reason: () => unknown): Deadline {
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort(reason());
  }, ms);
  const onCallerAbort = () => ctl.abort(caller?.reason);
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: ctl.signal,
    get timedOut() {
      return timedOut;
    },
    end() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCallerAbort);
    },
  };
}
