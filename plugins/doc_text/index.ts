/**
 * doc_text (issue 15): the service's own document reader, needing no key and no model, so
 * doc-to-text works out of the box. Serves `doc_to_text` (text of the selected pages) and
 * `document_pages` (page by page, with the page count), which the model-backed `extract` lane
 * reads documents through (`ctx.call`). PDFs via poppler, office formats via the warm
 * LibreOffice pool, scans and images via Tesseract; every tool runs in a child process.
 */
import { defineEndpoint, definePlugin, implement, MB, type ResolvedConfig, type RunContext } from '../../core/sdk.js';
import { docToText, documentPages, docTextCost, DOC_TEXT_MAX_PAGES } from '../../core/catalogue.js';
import { loadInput, withScratch } from '../../core/sdk.js';
import { readDocument, type DocumentText } from './read.js';
import { Gate } from '../../core/sdk.js';

const config = {
  maxFileMb: { env: 'DOC_TEXT_MAX_FILE_MB', type: 'integer', description: 'Largest document doc-to-text reads, in MB.', default: 30, min: 1, max: 100 },
  ocrLanguages: { env: 'DOC_TEXT_OCR_LANGUAGES', description: 'Tesseract languages for scanned pages and images (installed traineddata, e.g. `eng` or `eng+deu`).', default: 'eng' },
  maxProcesses: { env: 'DOC_TEXT_MAX_PROCESSES', type: 'integer', description: 'poppler and tesseract processes run at once on the instance (OCR of scanned pages is CPU-bound).', default: 2, min: 1, max: 64 },
  toolTimeoutMs: { env: 'DOC_TEXT_TOOL_TIMEOUT_MS', type: 'integer', description: 'Longest one pdftotext, pdftoppm or tesseract run may take, in ms.', default: 120000, min: 1000, max: 600000 },
  maxPages: { env: 'DOC_TEXT_MAX_PAGES', type: 'integer', description: `Most pages one call reads (after the page selection); more is a free 400 before any work. At most ${DOC_TEXT_MAX_PAGES}, the most the price holds for.`, default: DOC_TEXT_MAX_PAGES, min: 1, max: DOC_TEXT_MAX_PAGES },
  ocrMaxMegapixels: { env: 'DOC_TEXT_OCR_MAX_MEGAPIXELS', type: 'integer', description: 'Largest bitmap one page is rendered to for OCR, in megapixels: a larger page is rendered below 300 dpi to fit, and one that would need less than 50 dpi is a 400 naming the page.', default: 50, min: 1, max: 500 },
} as const;

/** Plugin state: the process gate and the settings the reader needs. */
interface State {
  gate: Gate;
  maxBytes: number;
}


/** Loads and reads one input with this plugin's settings. */
async function read(input: { inputMethod: 'url' | 'base64'; file: string; pages?: string; fileExtension?: string }, ctx: RunContext): Promise<DocumentText> {
  // A file by URL is written into a scratch folder as it arrives, never held here (issue 24 finding 6).
  const doc = await (input.inputMethod === 'url' ? withScratch('doc-text-url', (dir) => readFrom(input, ctx, dir)) : readFrom(input, ctx));
  ctx.log.info({ format: doc.format, pageCount: doc.pageCount, read: doc.pages.length, ocr: doc.pages.filter((p) => p.ocr).length }, 'document read');
  return doc;
}

/** Loads the input (a URL's body into `dir`) and reads it. */
async function readFrom(input: { inputMethod: 'url' | 'base64'; file: string; pages?: string; fileExtension?: string }, ctx: RunContext, dir?: string): Promise<DocumentText> {
  const state = ctx.state as State;
  const c = ctx.config as unknown as ResolvedConfig<typeof config>;
  const loaded = await loadInput(ctx.engines, input.inputMethod, input.file, 'file', state.maxBytes, ctx.signal, dir);
  return readDocument(loaded, {
    engines: ctx.engines,
    signal: ctx.signal,
    caller: ctx.caller,
    gate: state.gate,
    ocrLanguages: c.ocrLanguages,
    toolTimeoutMs: c.toolTimeoutMs,
    maxPages: c.maxPages,
    maxPixels: c.ocrMaxMegapixels * 1_000_000,
    hint: input.fileExtension,
    pages: input.pages,
    // A capability reading documents through this one (extract-document's 10 per page) hears the
    // page count before any page is read, so it holds its own price for them before the OCR's.
    counted: (pages) => ctx.measured({ pages }),
    // The OCR pages are known before any is rendered: their price is held first (403, free, when
    // the key cannot cover it), then counted.
    beforeOcr: async (pages) => {
      await ctx.reserveFor({ ocr_pages: pages });
      ctx.usage.add('ocr_pages', pages);
    },
  });
}

// Queue waits are bounded by the office pool and the process gate; this stops a runaway OCR.
const TIMEOUT_MS = 10 * 60 * 1000;

const text = defineEndpoint({
  operation: 'text',
  title: 'Document to text',
  summary: docToText.summary,
  input: docToText.input,
  output: docToText.output!,
  cost: docTextCost(),
  timeoutMs: TIMEOUT_MS,
  perKeyConcurrency: 2,
  messages: docToText.messages,
  validate: docToText.validate,
  examples: docToText.examples,
  async run(input, ctx) {
    const doc = await read(input, ctx);
    return { text: doc.pages.map((p) => p.text).join('\n\n') };
  },
});

const pages = defineEndpoint({
  operation: 'pages',
  title: 'Document pages',
  summary: documentPages.summary,
  input: documentPages.input,
  output: documentPages.output!,
  cost: docTextCost(),
  timeoutMs: TIMEOUT_MS,
  perKeyConcurrency: 2,
  messages: documentPages.messages,
  validate: documentPages.validate,
  examples: documentPages.examples,
  async run(input, ctx) {
    return read(input, ctx);
  },
});

export default definePlugin<State, typeof config>({
  id: 'doc_text',
  apiVersion: 1,
  title: 'Document text',
  summary: 'Text of PDFs, office documents and images on this machine (poppler, LibreOffice, Tesseract OCR); no key, no model.',
  tags: ['document', 'pdf', 'text', 'ocr', 'tesseract', 'poppler', 'managed'],
  managed: true,
  config,
  setup: ({ config: c }) => ({ gate: new Gate(c.maxProcesses), maxBytes: c.maxFileMb * MB }),
  endpoints: [text, pages],
  implements: [implement(docToText, text), implement(documentPages, pages)],
});
