/**
 * The documents plugin (spec §4.6, §8): a service-managed provider of `convert_to_pdf`,
 * `convert_to_pdf_formats` and `merge_pdfs`, reached through the v1 table only (spec §9.1).
 * Conversions run on the warm LibreOffice pool (`engines.office`); merges on `engines.pdf`;
 * results go to the file store with 24-hour signed URLs.
 */
import { Type, definePlugin, defineEndpoint, flat, perOutputMb, MB } from '../../core/sdk.js';
import { ConvertInput, FormatsOutput, MergeInput, PdfUrlOutput } from '../../core/catalogue.js';
import { convertToPdf, listFormats } from './convert.js';
import { mergePdfs } from './merge.js';
import type { Limits } from './store.js';

const config = {
  prewarm: { env: 'DOCUMENTS_PREWARM', type: 'boolean', description: 'Start the LibreOffice pool at boot (`true`) or at the first conversion (`false`).', default: true },
  maxFileMb: { env: 'DOCUMENTS_MAX_FILE_MB', type: 'number', min: 0.001, description: 'Largest accepted input file, in MB.', default: 50 },
  maxMergeMb: { env: 'DOCUMENTS_MAX_MERGE_MB', type: 'number', min: 0.001, description: 'Largest total size of the files of one merge, in MB.', default: 100 },
} as const;

// Queue wait is bounded by the pool (429 when full); this only stops a runaway request.
const TIMEOUT_MS = 10 * 60 * 1000;
const COST = perOutputMb({ credits: 50, perMb: 100, maxMb: 100 });

export default definePlugin<Limits, typeof config>({
  id: 'documents',
  apiVersion: 1,
  title: 'Documents',
  summary: 'Convert documents to PDF on a warm LibreOffice pool and merge PDFs, with PDF/A and PDF/UA.',
  tags: ['pdf', 'documents', 'libreoffice'],
  managed: true,
  config,
  setup({ config: c, engines, log }) {
    if (c.prewarm) {
      engines.office.warm().catch((err: unknown) => log.error({ err }, 'LibreOffice pool failed to start'));
    }
    return { maxFileBytes: c.maxFileMb * MB, maxMergeBytes: c.maxMergeMb * MB, maxOutputBytes: 100 * MB };
  },
  endpoints: [
    defineEndpoint({
      operation: 'convert_to_pdf',
      title: 'Convert a document to PDF',
      summary: 'LibreOffice conversion of any format in the spec §4.6 list; returns a 24-hour download URL.',
      visibility: 'legacy',
      input: ConvertInput,
      output: PdfUrlOutput,
      cost: COST,
      timeoutMs: TIMEOUT_MS,
      perKeyConcurrency: 8,
      run: (input, ctx) => convertToPdf(input, ctx, ctx.state as Limits),
    }),
    defineEndpoint({
      operation: 'list_formats',
      title: 'List formats convertible to PDF',
      summary: 'The extensions convert_to_pdf accepts.',
      visibility: 'legacy',
      input: Type.Object({}),
      output: FormatsOutput,
      cost: flat(0),
      run: async (_input, ctx) => listFormats(ctx.state as Limits),
    }),
    defineEndpoint({
      operation: 'merge_pdfs',
      title: 'Merge PDFs',
      summary: 'Merges PDFs in order with optional metadata, PDF/A-1b/2b/3b and PDF/UA; returns a 24-hour download URL.',
      visibility: 'legacy',
      input: MergeInput,
      output: PdfUrlOutput,
      perKeyConcurrency: 8,
      cost: COST,
      timeoutMs: TIMEOUT_MS,
      run: (input, ctx) => mergePdfs(input, ctx, ctx.state as Limits),
    }),
  ],
  implements: [
    { capability: 'convert_to_pdf', endpoint: 'convert_to_pdf' },
    { capability: 'convert_to_pdf_formats', endpoint: 'list_formats' },
    { capability: 'merge_pdfs', endpoint: 'merge_pdfs' },
  ],
});
