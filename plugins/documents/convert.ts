/**
 * convert-to-pdf (spec §4.6): read the input, settle its format, check the bytes agree, convert
 * on the warm LibreOffice pool, check the result is a readable PDF, store it for 24 hours.
 */
import { InputError, OperationFailedError, ServiceError, fromBase64, inputBytes, inputSize, tooLarge, type Engines, type UsageRecorder } from '../../core/sdk.js';
import { SUPPORTED_EXTENSIONS, extensionOfMediaType, isSupported } from './formats.js';
import { checkFormat, detectFormat, isText, plainTextAllowed } from './sniff.js';
import { download, type RawInput } from './inputs.js';
import { storePdf, type Limits } from './store.js';

const LIST_HINT = 'GET /api/v1/convert-to-pdf lists the supported formats.';

/**
 * The format of an input: URL path extension, then media type, then the bytes (spec §4.6).
 * `null`: binary content no signature here names, left to LibreOffice's type detection.
 */
export function resolveFormat(raw: RawInput): string | null {
  if (raw.pathExtension && isSupported(raw.pathExtension)) return raw.pathExtension === 'jpeg' ? 'jpg' : raw.pathExtension;
  const fromType = extensionOfMediaType(raw.contentType);
  if (fromType && isSupported(fromType)) return fromType;
  const sniffed = detectFormat(raw.data);
  if (sniffed === 'pdf') throw new InputError('Unsupported format: the file is already a PDF.');
  if (sniffed === 'encrypted') throw new InputError('The file is password-protected; remove the password and retry.');
  if (sniffed && isSupported(sniffed)) return sniffed;
  if (raw.pathExtension && /^[a-z0-9]{1,5}$/.test(raw.pathExtension)) throw new InputError(`Unsupported file format '.${raw.pathExtension}'. ${LIST_HINT}`);
  if (sniffed === undefined && !isText(raw.data)) return null;
  throw new InputError(`Unrecognised file format. ${LIST_HINT}`);
}

/** Runs one conversion and returns the download URL. */
export async function convertToPdf(
  input: { inputMethod: 'url' | 'base64'; file: string },
  ctx: { engines: Engines; signal: AbortSignal; caller?: string; usage: UsageRecorder; log: { info(o: object, m?: string): void } },
  limits: Limits,
): Promise<{ url: string }> {
  const raw = input.inputMethod === 'url'
    ? await download(ctx.engines, input.file, 'file', limits.maxFileBytes, ctx.signal)
    : fromBase64(input.file, 'file', limits.maxFileBytes);
  if (inputSize(raw) > limits.maxFileBytes) throw tooLarge('file', limits.maxFileBytes);
  // LibreOffice's pool and the format checks below take bytes: a large body's file (issue 24) is
  // read once here without blocking this thread, and `raw.data` is those bytes from then on.
  await inputBytes(raw);
  const ext = resolveFormat(raw);
  if (ext) checkFormat(ext, raw.data);
  const result = await ctx.engines.office.convert(
    { data: raw.data, extension: ext },
    // Without an extension LibreOffice's detection decides, within the spec's list only.
    { tagged: true, plainText: ext !== null && plainTextAllowed(ext, raw.data), formats: SUPPORTED_EXTENSIONS, signal: ctx.signal, owner: ctx.caller },
  );
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
