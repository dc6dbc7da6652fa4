/** Stores a produced PDF and reports its size for billing (spec §8.1, §8.2). */
import { OperationFailedError, sizeText, type Engines, type UsageRecorder } from '../../core/sdk.js';


/** Size limits of the documents plugin (documented in its README). */
export interface Limits {
  maxFileBytes: number;
  maxMergeBytes: number;
  /** Largest PDF the service hands out: the cost rule prices one 100 MB block (spec §8.1). */
  maxOutputBytes: number;
}

/** Retention of converted and merged PDFs (spec §8.2: 24 hours). */
export const PDF_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Puts the PDF in the file store, reports `output_bytes` and returns `{ url }`. */
export async function storePdf(ctx: { engines: Engines; usage: UsageRecorder }, pdf: Uint8Array, limits: Limits, what = 'convert to PDF'): Promise<{ url: string }> {
  if (pdf.byteLength > limits.maxOutputBytes) throw new OperationFailedError(`Failed to ${what}: the PDF is larger than ${sizeText(limits.maxOutputBytes)}.`);
  const stored = await ctx.engines.files.put(pdf, { contentType: 'application/pdf', extension: 'pdf', retentionMs: PDF_RETENTION_MS });
  ctx.usage.add('output_bytes', pdf.byteLength);
  return { url: stored.url };
}
