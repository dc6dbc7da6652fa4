/** Browser engine contract (owned by the web lane). */
export interface BrowserEngine {
  /** Placeholder until the web lane defines it. */
  readonly kind: 'browser';
}
