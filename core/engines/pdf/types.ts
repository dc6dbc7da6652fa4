/** PDF engine contract (owned by the documents lane). */
export interface PdfEngine {
  /** Placeholder until the documents lane defines it. */
  readonly kind: 'pdf';
}
