/**
 * Reads an input given as `inputMethod` `url` (fetched through the HTTP engine with the SSRF
 * guard and a size cap) or `base64` (a data: URL is accepted), naming the field in every error.
 * In the SDK: every job that takes files (`inputMethod` url|base64) reads them this way.
 */
import { randomUUID } from 'node:crypto';
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, PayloadTooLargeError, ServiceError, UpstreamError } from '../errors.js';
import type { Engines } from '../engines/types.js';
import { DecodedBase64, decodedFor } from './predecoded.js';

/** One input as read: bytes plus whatever names its type. */
export interface LoadedInput {
  data: Buffer;
  /** Extension of the URL path (lower case, no dot), if any. */
  pathExtension?: string;
  /** Declared media type (Content-Type or the data: URL's). */
  contentType?: string;
}

const BASE64 = /^[A-Za-z0-9+/\-_]*={0,2}$/;
/** A `data:` URL's prefix up to its base64 (the media type captured); the body worker reads it too (server/body/plain-base64.ts). */
export const DATA_URL = /^data:([^;,]*)(?:;[^,]*)?;base64,/i;
/** A byte limit as people read it (`50 MB`, `10 KB`). */
export function sizeText(bytes: number): string {
  return bytes >= 1e6 ? `${Math.round(bytes / 1e6)} MB` : `${Math.round(bytes / 1e3)} KB`;
}

/** 413 for an input over its cap, whichever way it came. */
export function tooLarge(label: string, maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`'${label}' is larger than the ${sizeText(maxBytes)} limit.`);
}

/**
 * Refuses base64 of `chars` characters (prefix and whitespace dropped) that decodes to more than
 * `maxBytes`, before or without decoding it: every 4 characters are 3 bytes, padding aside.
 */
function refuseOverSize(chars: number, label: string, maxBytes: number): void {
  if (Math.floor((chars * 3) / 4) > maxBytes + 3) throw tooLarge(label, maxBytes);
}

/**
 * Decodes base64 (standard or URL-safe, whitespace ignored). A string a worker thread already
 * decoded for this request (core/plugin/predecoded.ts) gets the same checks on its recorded size.
 */
export function fromBase64(value: string | DecodedBase64, label: string, maxBytes: number): LoadedInput {
  // A large body's file field arrives decoded into a file, in place of its string (predecoded.ts).
  if (value instanceof DecodedBase64) return fromDecodedFile(value, label, maxBytes);
  const done = decodedFor(value);
  if (done) {
    refuseOverSize(done.textLength, label, maxBytes);
    if (done.data.byteLength === 0) throw new InputError(`'${label}' is empty.`);
    return { data: done.data, contentType: done.contentType };
  }
  const parts = base64Text(String(value));
  if (!parts) throw new InputError(`'${label}' is not valid base64.`);
  const { text, contentType } = parts;
  refuseOverSize(text.length, label, maxBytes);
  const data = decodeBase64Text(text);
  if (data.byteLength === 0) throw new InputError(`'${label}' is empty.`);
  return { data, contentType };
}

/** A decoded file field behind an input, and its bytes once something has read them. */
interface DecodedInput {
  file: DecodedBase64;
  data?: Buffer;
}

/**
 * Decoded file fields behind the inputs read from them: a handler that hands the input to a tool
 * ({@link writeInputFile}) or sniffs its first bytes ({@link inputHead}) never reads the file into
 * this thread's memory, and one that needs the bytes reads them without blocking ({@link inputBytes}) (issue 24).
 */
const decodedFiles = new WeakMap<LoadedInput, DecodedInput>();

/**
 * An input whose `data` is read from its decoded file only when something asks for it (once):
 * by {@link inputBytes}, or, for a plugin that reads `data` first, with a blocking read.
 */
function fromDecodedFile(done: DecodedBase64, label: string, maxBytes: number): LoadedInput {
  refuseOverSize(done.textLength, label, maxBytes);
  if (done.size === 0) throw new InputError(`'${label}' is empty.`);
  return fileBacked(done, { contentType: done.contentType });
}

/** An input whose bytes are in `file`'s file, read only when something asks for them (see {@link fromDecodedFile}). */
function fileBacked(file: DecodedBase64, described: Omit<LoadedInput, 'data'>): LoadedInput {
  const state: DecodedInput = { file };
  const input: LoadedInput = {
    ...described,
    get data(): Buffer {
      return (state.data ??= file.bytesNow());
    },
    set data(v: Buffer) {
      // Bytes a handler put in its place are what the input is from then on.
      state.data = v;
      decodedFiles.delete(input);
    },
  };
  decodedFiles.set(input, state);
  return input;
}

/**
 * The input's bytes in memory, for a reader that needs them all (a parser, an engine that takes
 * bytes): a decoded file field is read from its file without blocking this thread (once; `data`
 * gives the same bytes afterwards). Handing the input to a tool ({@link writeInputFile}) or
 * reading its first bytes ({@link inputHead}) needs no such read.
 */
export async function inputBytes(input: LoadedInput): Promise<Buffer>;
export async function inputBytes(input: { data: Uint8Array }): Promise<Uint8Array>;
export async function inputBytes(input: { data: Uint8Array }): Promise<Uint8Array> {
  const state = decodedFiles.get(input as LoadedInput);
  if (!state) return input.data;
  return (state.data ??= await state.file.bytes());
}

/**
 * The input as a base64 field's value for another capability (`ctx.call`): a decoded file field
 * is handed on as it came (the called capability copies or reads its file; nothing is encoded
 * here), any other input as its base64. Typed as the string it stands for, as file fields are.
 */
export function inputAsBase64(input: LoadedInput): string {
  const state = decodedFiles.get(input);
  if (state) return state.file as unknown as string;
  return input.data.toString('base64');
}

/**
 * The input's first bytes, at least its first 64 KB when it has them (a decoded file field's head;
 * otherwise all of `data`): enough for format signatures and image headers.
 */
export function inputHead(input: LoadedInput): Buffer {
  return decodedFiles.get(input)?.file.head ?? input.data;
}

/**
 * The input's first bytes when `enough` finds what it looks for in them (or they are all of it),
 * else all its bytes: a reader of headers that are usually near the start (an image's size after
 * a JPEG's metadata) reads the whole file only when they are not (without blocking: {@link inputBytes}).
 */
export async function inputHeadFor(input: LoadedInput, enough: (head: Buffer) => boolean): Promise<Buffer> {
  const head = inputHead(input);
  return enough(head) || head.byteLength >= inputSize(input) ? head : inputBytes(input);
}

/** The input's size in bytes, without reading a decoded file field. */
export function inputSize(input: { data: Uint8Array }): number {
  return decodedFiles.get(input as LoadedInput)?.file.size ?? input.data.byteLength;
}

/** Writes the input to `file` for a tool: a decoded file field is copied file to file, not read into memory. */
export async function writeInputFile(input: LoadedInput, file: string): Promise<void> {
  const decoded = decodedFiles.get(input);
  if (decoded) await decoded.file.copyTo(file);
  else await writeFile(file, input.data);
}

/**
 * The base64 characters of `value` (a `data:` URL's prefix and all whitespace dropped) and the
 * URL's media type; undefined when what is left is not base64. The one reading of a base64 field,
 * shared with the worker thread that decodes large bodies' fields ahead of time.
 */
export function base64Text(value: string): { text: string; contentType?: string } | undefined {
  let text = value.trim();
  let contentType: string | undefined;
  const dataUrl = DATA_URL.exec(text);
  if (dataUrl) {
    contentType = dataUrl[1] || undefined;
    text = text.slice(dataUrl[0].length);
  }
  text = text.replace(/\s+/g, '');
  if (!BASE64.test(text) || text.length % 4 === 1) return undefined;
  return { text, contentType };
}

/** Decodes what {@link base64Text} kept (standard or URL-safe alphabet). */
export function decodeBase64Text(text: string): Buffer {
  return Buffer.from(text, /[-_]/.test(text) ? 'base64url' : 'base64');
}

/** A download's failure as the caller's input problem (400), its size as a 413; the caller's abort as is. */
function downloadFailed(err: unknown, label: string, maxBytes: number, signal: AbortSignal): unknown {
  if (signal.aborted) return err;
  if (err instanceof PayloadTooLargeError) return tooLarge(label, maxBytes);
  if (err instanceof ServiceError && !(err instanceof UpstreamError)) return err;
  return new InputError(`Could not download '${label}': ${(err as Error).message}`, { cause: err });
}

/** What names a downloaded input's type: the URL path's extension and the Content-Type. */
function described(finalUrl: string, url: string, headers: Record<string, string>): Omit<LoadedInput, 'data'> {
  const last = new URL(finalUrl || url).pathname.split('/').pop() ?? '';
  const dot = last.lastIndexOf('.');
  const pathExtension = dot > 0 ? last.slice(dot + 1).toLowerCase() : undefined;
  const contentType = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1]?.split(';')[0]?.trim();
  return { pathExtension, contentType };
}

/**
 * Downloads a user-supplied URL through the SSRF guard; an unreachable URL is the caller's input
 * problem (400). With `dir`, a scratch folder of the caller's that outlives every use of the
 * input (`withScratch`'s), the body is written into a file there as it arrives and the input reads
 * it from there, as a large body's file field (issue 24 finding 6: URL files were held whole in
 * memory): handed to a tool it is copied file to file, never read on the serving thread. Without,
 * the body is read into memory. Either way it counts in the in-flight byte budget while received.
 */
export async function fromUrl(engines: Engines, url: string, label: string, maxBytes: number, signal: AbortSignal, dir?: string): Promise<LoadedInput> {
  if (dir !== undefined) return fromUrlToFile(engines, url, label, maxBytes, signal, join(dir, `url-${randomUUID()}`));
  let res;
  try {
    res = await engines.http.request({ url, guard: true, maxBytes, timeoutMs: 120_000, maxRedirects: 5, signal });
  } catch (err) {
    throw downloadFailed(err, label, maxBytes, signal);
  }
  if (res.status >= 400) throw new InputError(`Could not download '${label}': the server answered HTTP ${res.status}.`);
  if (res.body.byteLength === 0) throw new InputError(`'${label}' is empty.`);
  return { data: Buffer.from(res.body.buffer, res.body.byteOffset, res.body.byteLength), ...described(res.url, url, res.headers) };
}

/** How much of a downloaded file's start {@link inputHead} gives (as a large body's file field's head). */
const HEAD_BYTES = 64 * 1024;

/** A URL downloaded into `file` and read from there: the input stands for the base64 of its bytes when handed on ({@link inputAsBase64}). */
async function fromUrlToFile(engines: Engines, url: string, label: string, maxBytes: number, signal: AbortSignal, file: string): Promise<LoadedInput> {
  const got = await downloadTo(engines, url, label, maxBytes, signal, file);
  const head = Buffer.alloc(Math.min(HEAD_BYTES, got.bytes));
  const fh = await open(file, 'r');
  try {
    await fh.read(head, 0, head.byteLength, 0);
  } finally {
    await fh.close();
  }
  // The string it stands for is Node's base64 of the bytes, no prefix (what `data.toString('base64')` gave).
  const chars = 4 * Math.ceil(got.bytes / 3);
  const decoded = new DecodedBase64({ path: file, size: got.bytes, head }, undefined, chars, chars, { prefix: '' });
  const { bytes: _, ...names } = got;
  return fileBacked(decoded, names);
}

/** Streams `url` into `file` within `maxBytes` (see `engines.http.download`), naming the field in every error. */
async function downloadTo(engines: Engines, url: string, label: string, maxBytes: number, signal: AbortSignal, file: string): Promise<FileInput> {
  let res;
  try {
    res = await engines.http.download({ url, guard: true, maxBytes, timeoutMs: 120_000, maxRedirects: 5, signal, file });
  } catch (err) {
    throw downloadFailed(err, label, maxBytes, signal);
  }
  if (res.status >= 400) throw new InputError(`Could not download '${label}': the server answered HTTP ${res.status}.`);
  if (res.bytes === 0) throw new InputError(`'${label}' is empty.`);
  return { bytes: res.bytes, ...described(res.url, url, res.headers) };
}

/** An input written to a file: its size and what names its type. */
export interface FileInput extends Omit<LoadedInput, 'data'> {
  bytes: number;
}

/**
 * Reads `value` the way `inputMethod` says straight into `file` (issue 24: large media by URL
 * were held whole in memory): a URL is streamed to the file as it arrives and counts in the
 * in-flight byte budget meanwhile; base64 is decoded and written (a large body's file field,
 * already decoded into a file, is copied).
 */
export async function loadInputToFile(engines: Engines, method: 'url' | 'base64', value: string | DecodedBase64, label: string, maxBytes: number, signal: AbortSignal, file: string): Promise<FileInput> {
  if (method === 'base64') {
    const input = fromBase64(value, label, maxBytes);
    await writeInputFile(input, file);
    return { bytes: inputSize(input), contentType: input.contentType };
  }
  return downloadTo(engines, String(value).trim(), label, maxBytes, signal, file);
}

/**
 * Reads `value` the way `inputMethod` says. `dir`: a scratch folder that outlives the input's use,
 * where a URL's body is written as it arrives instead of being held in memory (see {@link fromUrl});
 * every handler that hands the input to a tool or a file-reading engine should give one.
 */
export function loadInput(engines: Engines, method: 'url' | 'base64', value: string | DecodedBase64, label: string, maxBytes: number, signal: AbortSignal, dir?: string): Promise<LoadedInput> {
  return method === 'url' ? fromUrl(engines, String(value).trim(), label, maxBytes, signal, dir) : Promise.resolve(fromBase64(value, label, maxBytes));
}
