/** Office engine contract (owned by the documents lane). */
export interface OfficeEngine {
  /** Placeholder until the documents lane defines it. */
  readonly kind: 'office';
}
