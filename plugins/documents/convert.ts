/**
 * convert-to-pdf (spec §4.6): write the input to the call's scratch folder, settle its format,
 * check the bytes agree, convert on the warm LibreOffice pool, check the result is a readable
 * PDF, store it for 24 hours. The input is never held whole on the serving thread (issue 24): a
 * URL is streamed to the file, a large body's decoded field copied there, and the format checks
 * read only what they need of it (sample.ts); LibreOffice's pool copies the file as it is.
 */
import { join } from 'node:path';
import { InputError, OperationFailedError, ServiceError, fromBase64, inputSize, tooLarge, withScratch, writeInputFile, type Engines, type UsageRecorder } from '../../core/sdk.js';
import { SUPPORTED_EXTENSIONS, extensionOfMediaType, isSupported } from './formats.js';
import { checkFormat, detectFormat, isText, plainTextAllowed } from './sniff.js';
import { downloadTo, type RawInput } from './inputs.js';
import { sampleOf, type FileSample } from './sample.js';
import { storePdf, type Limits } from './store.js';

const LIST_HINT = 'GET /api/v1/convert-to-pdf lists the supported formats.';

/**
 * The format of an input: URL path extension, then media type, then the bytes (spec §4.6).
 * `null`: binary content no signature here names, left to LibreOffice's type detection.
 */
export async function resolveFormat(raw: RawInput, sample: FileSample): Promise<string | null> {
  if (raw.pathExtension && isSupported(raw.pathExtension)) return raw.pathExtension === 'jpeg' ? 'jpg' : raw.pathExtension;
  const fromType = extensionOfMediaType(raw.contentType);
  if (fromType && isSupported(fromType)) return fromType;
  const sniffed = await detectFormat(sample);
  if (sniffed === 'pdf') throw new InputError('Unsupported format: the file is already a PDF.');
  if (sniffed === 'encrypted') throw new InputError('The file is password-protected; remove the password and retry.');
  if (sniffed && isSupported(sniffed)) return sniffed;
  if (raw.pathExtension && /^[a-z0-9]{1,5}$/.test(raw.pathExtension)) throw new InputError(`Unsupported file format '.${raw.pathExtension}'. ${LIST_HINT}`);
  if (sniffed === undefined && !isText(sample.head)) return null;
  throw new InputError(`Unrecognised file format. ${LIST_HINT}`);
}

/**
 * Writes the input to `file`: a URL streamed there (counted in the in-flight byte budget while it
 * arrives), base64 decoded there (a large body's decoded field copied file to file, its size
 * refused first). Answers its size and what names its type.
 */
async function writeInput(input: { inputMethod: 'url' | 'base64'; file: string }, ctx: { engines: Engines; signal: AbortSignal }, limits: Limits, file: string): Promise<RawInput & { bytes: number }> {
  if (input.inputMethod === 'url') return downloadTo(ctx.engines, input.file, 'file', limits.maxFileBytes, ctx.signal, file);
  const raw = fromBase64(input.file, 'file', limits.maxFileBytes);
  if (inputSize(raw) > limits.maxFileBytes) throw tooLarge('file', limits.maxFileBytes);
  await writeInputFile(raw, file);
  return { bytes: inputSize(raw), contentType: raw.contentType };
}

/** Runs one conversion and returns the download URL. */
export async function convertToPdf(
  input: { inputMethod: 'url' | 'base64'; file: string },
  ctx: { engines: Engines; signal: AbortSignal; caller?: string; usage: UsageRecorder; log: { info(o: object, m?: string): void } },
  limits: Limits,
): Promise<{ url: string }> {
  // The file lives until the pool has copied it into its job's folder.
  const { ext, result } = await withScratch('convert-to-pdf', async (dir) => {
    const file = join(dir, 'input');
    const { bytes, ...names } = await writeInput(input, ctx, limits, file);
    const sample = await sampleOf(file, bytes);
    const ext = await resolveFormat(names, sample);
    if (ext) await checkFormat(ext, sample);
    const result = await ctx.engines.office.convert(
      { file, extension: ext },
      // Without an extension LibreOffice's detection decides, within the spec's list only.
      { tagged: true, plainText: ext !== null && plainTextAllowed(ext, sample), formats: SUPPORTED_EXTENSIONS, signal: ctx.signal, owner: ctx.caller },
    );
    return { ext, result };
  });
  let pages: number;
  try {
    pages = await ctx.engines.pdf.pageCount(result.pdf, 'output', { signal: ctx.signal, owner: ctx.caller, tools: ctx.engines.tools });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    throw new OperationFailedError('Failed to convert to PDF: LibreOffice produced an unreadable PDF.', { cause: err });
  }
  ctx.log.info({ format: ext, type: result.type, pages, bytes: result.pdf.byteLength, convertMs: result.convertMs, queuedMs: result.queuedMs }, 'converted to PDF');
  try {
    return await storePdf(ctx, result.pdf, limits);
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    throw new OperationFailedError('Failed to convert to PDF: the result could not be stored.', { cause: err });
  }
}

/** The GET listing (spec §4.6 "returns the supported formats"). */
export function listFormats(limits: Limits): { formats: string[]; maxFileBytes: number } {
  return { formats: SUPPORTED_EXTENSIONS.map((e) => `.${e}`), maxFileBytes: limits.maxFileBytes };
}
