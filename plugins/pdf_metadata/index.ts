/**
 * pdf_metadata (issue 28): a service-managed provider of `read_pdf_metadata` and
 * `write_pdf_metadata`, the original service's `POST /api/v1/read-pdf-metadata` and
 * `/write-pdf-metadata`. PDFs are read by URL (SSRF guard) or base64 and handed to poppler and
 * qpdf only; written PDFs go to the file store behind 24-hour signed links.
 */
import { MB, defineEndpoint, definePlugin, implement, loadInput, withScratch, Gate, type RunContext, type Static } from '../../core/sdk.js';
import { readPdfMetadata, writePdfMetadata } from '../../core/catalogue.js';
import { readOne } from './read.js';
import { writeOne } from './write.js';

const config = {
  maxFileMb: { env: 'PDF_METADATA_MAX_FILE_MB', type: 'number', min: 0.001, description: 'Largest accepted PDF, in MB.', default: 50 },
  maxProcesses: { env: 'PDF_METADATA_MAX_PROCESSES', type: 'integer', min: 1, max: 32, description: 'pdfinfo/qpdf processes the plugin runs at once on this instance.', default: 2 },
} as const;

interface State {
  gate: Gate;
  maxBytes: number;
}

const TIMEOUT_MS = 5 * 60 * 1000;
const TOOL_TIMEOUT_MS = 60_000;
const RETENTION_MS = 24 * 60 * 60 * 1000;

const deps = (ctx: RunContext<State>) => ({ gate: ctx.state.gate, signal: ctx.signal, timeoutMs: TOOL_TIMEOUT_MS, tools: ctx.engines.tools, caller: ctx.caller });
const labels = (n: number) => Array.from({ length: n }, (_, i) => (n === 1 ? 'files[0]' : `files[${i}]`));

// PDFs by URL are written into the call's scratch folder as they arrive, never held here (issue 24 finding 6).
async function read(input: Static<typeof readPdfMetadata.input>, ctx: RunContext<State>) {
  const names = labels(input.files.length);
  const files = await withScratch('pdf-meta', async (dir) => {
    const out = [];
    for (const [i, value] of input.files.entries()) {
      const loaded = await loadInput(ctx.engines, input.inputMethod, value, names[i]!, ctx.state.maxBytes, ctx.signal, dir);
      out.push(await readOne(deps(ctx), dir, loaded, names[i]!));
    }
    return out;
  });
  ctx.usage.add('files', files.length);
  return { files };
}

async function write(input: Static<typeof writePdfMetadata.input>, ctx: RunContext<State>) {
  const names = labels(input.files.length);
  // Every file is written before any is stored, so a bad third file leaves no orphaned links.
  const pdfs = await withScratch('pdf-meta', async (dir) => {
    const out: Buffer[] = [];
    for (const [i, value] of input.files.entries()) {
      const loaded = await loadInput(ctx.engines, input.inputMethod, value, names[i]!, ctx.state.maxBytes, ctx.signal, dir);
      out.push(await writeOne(deps(ctx), dir, loaded, names[i]!, input.metadata));
    }
    return out;
  });
  const urls: string[] = [];
  for (const pdf of pdfs) urls.push((await ctx.engines.files.put(pdf, { contentType: 'application/pdf', extension: 'pdf', retentionMs: RETENTION_MS })).url);
  ctx.usage.add('files', urls.length);
  return urls.length === 1 ? { url: urls[0]! } : { urls };
}

const readEndpoint = defineEndpoint({
  operation: 'read',
  title: readPdfMetadata.title,
  summary: readPdfMetadata.summary,
  visibility: 'legacy',
  input: readPdfMetadata.input,
  output: readPdfMetadata.output!,
  cost: readPdfMetadata.cost,
  messages: readPdfMetadata.messages,
  validate: readPdfMetadata.validate,
  timeoutMs: TIMEOUT_MS,
  perKeyConcurrency: 4,
  run: read,
});

const writeEndpoint = defineEndpoint({
  operation: 'write',
  title: writePdfMetadata.title,
  summary: writePdfMetadata.summary,
  visibility: 'legacy',
  input: writePdfMetadata.input,
  output: writePdfMetadata.output!,
  cost: writePdfMetadata.cost,
  messages: writePdfMetadata.messages,
  validate: writePdfMetadata.validate,
  timeoutMs: TIMEOUT_MS,
  perKeyConcurrency: 4,
  run: write,
});

export default definePlugin<State, typeof config>({
  id: 'pdf_metadata',
  apiVersion: 1,
  title: 'PDF metadata',
  summary: 'Read and write PDF document information with poppler and qpdf on this machine, XMP kept in step.',
  tags: ['pdf', 'metadata', 'xmp', 'managed'],
  managed: true,
  config,
  setup: ({ config: c }) => ({ gate: new Gate(c.maxProcesses), maxBytes: c.maxFileMb * MB }),
  endpoints: [readEndpoint, writeEndpoint],
  implements: [implement(readPdfMetadata, readEndpoint), implement(writePdfMetadata, writeEndpoint)],
});
