/**
 * Reads user-supplied PDFs for merging (spec §4.6): a non-PDF, corrupt or password-protected
 * input is a 400 naming the file, never a 500. PDFs that are encrypted only with an owner
 * password (permissions) open without one and are decrypted with qpdf first (under an address
 * space limit). Runs in the PDF thread (thread.ts) under a decode cap (decode-cap.ts).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument, EncryptedPDFError } from 'pdf-lib';
import { InputError } from '../../errors.js';
import { runTool, withScratch } from './tools.js';
import { DecodeLimitError, decodeExceeded, decodeLimit, decodeRemaining } from './decode-cap.js';
import { eagerFlateStreams, inflatedSize } from './eager-streams.js';

/** Memory of the qpdf that repairs an input (it inflates object streams in memory); TOOLS_MEMORY_MB when lower. */
const QPDF_MEMORY_BYTES = 1024 * 1024 * 1024;

function looksLikePdf(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  return head.includes('%PDF-');
}

/**
 * Refuses a file whose object and cross-reference streams inflate past what the job may still
 * decode, counted natively before pdf-lib decodes them in JavaScript (eager-streams.ts).
 */
async function precheck(bytes: Uint8Array): Promise<void> {
  const remaining = decodeRemaining();
  if (remaining === undefined) return;
  if ((await inflatedSize(eagerFlateStreams(bytes), remaining)) > remaining) throw new DecodeLimitError(decodeLimit() ?? 0);
}

async function parse(bytes: Uint8Array): Promise<PDFDocument> {
  await precheck(bytes);
  const doc = await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: false });
  // pdf-lib skips an object whose stream went over the decode cap: the document is not what it says.
  if (decodeExceeded()) throw new DecodeLimitError(decodeLimit() ?? 0);
  if (doc.getPageCount() === 0) throw new Error('no pages');
  return doc;
}

/** The 400 of an input whose streams decode past the job's cap. */
export function overCap(label: string, cause: unknown): InputError {
  const mb = Math.round((decodeLimit() ?? 0) / 1_000_000);
  return new InputError(`${label} is refused: its compressed streams expand past the ${mb} MB this service decodes for one request.`, { cause });
}

/** Loads one input; `label` (e.g. `files[1]`) names it in the error texts. */
export async function loadPdf(bytes: Uint8Array, label: string, scratch?: string): Promise<PDFDocument> {
  if (bytes.byteLength === 0) throw new InputError(`${label} is empty.`);
  if (!looksLikePdf(bytes)) throw new InputError(`${label} is not a PDF file.`);
  try {
    return await parse(bytes);
  } catch (err) {
    // Over the cap: refused as it is (qpdf would inflate the same streams, unbounded).
    if (err instanceof DecodeLimitError || decodeExceeded()) throw overCap(label, err);
    const encrypted = err instanceof EncryptedPDFError;
    // qpdf opens owner-password-only files and repairs some damage pdf-lib cannot read.
    const fixed = await withScratch(scratch, async (dir) => {
      const input = join(dir, 'in.pdf');
      const output = join(dir, 'out.pdf');
      await writeFile(input, bytes);
      // In the PDF thread this run is relayed to the serving thread (tool-relay.ts), which runs
      // it on the instance's tool engine for the job's caller and kills it when the job ends.
      const r = await runTool('qpdf', ['--decrypt', '--password=', input, output], { dirs: [dir], memoryBytes: QPDF_MEMORY_BYTES });
      if (r.code !== 0 && r.code !== 3) return { ok: false as const, text: r.stderr };
      return { ok: true as const, bytes: new Uint8Array(await readFile(output)) };
    });
    if (!fixed.ok) {
      if (encrypted || /invalid password/i.test(fixed.text)) throw new InputError(`${label} is password-protected; remove the password and retry.`, { cause: err });
      throw new InputError(`${label} is corrupt or not a valid PDF.`, { cause: err });
    }
    try {
      return await parse(fixed.bytes);
    } catch (err2) {
      if (err2 instanceof DecodeLimitError || decodeExceeded()) throw overCap(label, err2);
      throw new InputError(`${label} is corrupt or not a valid PDF.`, { cause: err2 });
    }
  }
}
