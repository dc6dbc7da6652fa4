/** Sandbox engine contracts (owned by the code lane). */
export interface JsSandbox {
  /** Placeholder until the code lane defines it. */
  readonly kind: 'js';
}
export interface PythonSandbox {
  /** Placeholder until the code lane defines it. */
  readonly kind: 'python';
}
