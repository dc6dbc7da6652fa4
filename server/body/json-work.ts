/**
 * Work run in a compute worker thread for a large JSON request body (issue 24: parsing and
 * decoding megabyte bodies on the serving thread slowed every other caller). Parses the body
 * exactly as Fastify's own JSON parser would (the same library and options, so the same bodies
 * are refused), checks its depth, and decodes each long base64 string found in it, handing the
 * bytes back (moved, not copied) with the path of the string they came from.
 */
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { base64Text, decodeBase64Text } from '../../core/plugin/inputs.js';
import { nestedDeeperThan, textNestedDeeperThan } from '../json-depth.js';
import { plainStringValues, type PlainString } from './plain-strings.js';
import { plainBase64, type PlainBase64 } from './plain-base64.js';

type SecureParse = (text: string, reviver: undefined, options: { protoAction: 'error'; constructorAction: 'error' }) => unknown;
// Fastify's own dependency, loaded from where Fastify finds it: the parse refuses what Fastify's
// default parser refuses (`__proto__` and `constructor.prototype` keys), by the same code.
const secureParse = (createRequire(import.meta.resolve('fastify')) as NodeRequire)('secure-json-parse').parse as SecureParse;

/** Where a decoded string sits in the parsed body: object keys and array indexes from the top. */
export type BodyPath = (string | number)[];

/** A large body as parsed in the worker. */
export type ParsedBody =
  | { kind: 'invalid' }
  | { kind: 'deep' }
  | {
      kind: 'ok';
      value: unknown;
      /**
       * The decoded bytes, one per entry of `decoded` (moved to the serving thread); for a string
       * written to a file (`removed.file`), only its first {@link HEAD_BYTES}.
       */
      buffers: Uint8Array[];
      decoded: DecodedString[];
      /** The removed strings' UTF-8 bytes (moved too), named by `removed.source` (none for those rebuilt from their bytes). */
      sources: Uint8Array[];
    };

/** One decoded string: where it was and how it read. */
export interface DecodedString {
  path: BodyPath;
  contentType?: string;
  textLength: number;
  /**
   * Set when the string was taken out of `value` (left `null` there) because it is a file field:
   * its length, and how to get the string back should anything need it: where its UTF-8 bytes
   * are in `sources`, or, for a string that is exactly what Node writes for its bytes (most
   * files; see plain-base64.ts), the prefix to put before their base64 (nothing is sent).
   * With `spill`, the decoded bytes are in the file `file` (of `size` bytes) and the string's
   * bytes, where they are kept, in the file `sourceFile` instead of `sources`.
   */
  removed?: ({ length: number; source: number } | { length: number; prefix: string } | { length: number; sourceFile: string }) & { file?: string; size?: number };
}

/**
 * Bytes of a written file that still come back to the serving thread: enough for the signatures
 * and image headers read before a tool runs (core/engines/tools/image-header.ts, doc_text's
 * format sniffing, which reads exactly the first 64 KB; a reader that needs more reads the file).
 */
export const HEAD_BYTES = 64 * 1024;

/**
 * Writes decoded file fields into the request's body folder `dir` (made on the first one), named
 * by their order; issue 24: 20 MB of decoded files per body held on the serving thread started
 * full collections there. The folder is the serving thread's to remove (body-scratch.ts).
 */
function spiller(dir: string) {
  let made = false;
  let n = 0;
  return (bytes: Uint8Array, suffix = ''): string => {
    if (!made) mkdirSync(dir, { recursive: true, mode: 0o700 });
    made = true;
    const file = join(dir, `${n++}${suffix}`);
    writeFileSync(file, bytes, { mode: 0o600 });
    return file;
  };
}

/** The first {@link HEAD_BYTES} of `bytes`, in memory of their own (movable). */
function headOf(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.subarray(0, HEAD_BYTES));
}

/**
 * A file field that may leave the body as bytes only: a value (or an item of an array value) of
 * an object that says `inputMethod: 'base64'`, the shape of every input that takes files.
 * `requestSource` is read as text by the lanes whatever its shape.
 */
function fileField(value: unknown, path: BodyPath): boolean {
  const keyAt = typeof path.at(-1) === 'number' ? path.length - 2 : path.length - 1;
  if (keyAt < 0 || path[keyAt] === 'requestSource') return false;
  let parent: unknown = value;
  for (const step of path.slice(0, keyAt)) parent = (parent as Record<string | number, unknown>)[step];
  return !!parent && typeof parent === 'object' && !Array.isArray(parent) && (parent as { inputMethod?: unknown }).inputMethod === 'base64';
}

/** A long string value cut out of the text before parsing, read from its bytes. */
interface CutString {
  /** Where its characters are in the body (ASCII: read as Latin-1, the bytes are the characters). */
  at: PlainString;
  read: PlainBase64;
}

/**
 * The text with every long string value that is plain base64 (plain-base64.ts) replaced by a
 * stand-in: `marker` and its number, a string no caller can guess. JSON.parse then neither turns
 * those megabytes into text nor copies them into strings, and the prototype-key scan of
 * secure-json-parse reads a short text (the keys, which that scan is about, are all still there).
 */
function cutBase64(bytes: Buffer, minDecode: number): { text: Buffer; marker: string; cut: CutString[] } {
  const marker = `${randomBytes(12).toString('hex')}#`;
  const cut: CutString[] = [];
  const parts: Buffer[] = [];
  let from = 0;
  for (const at of plainStringValues(bytes, minDecode)) {
    const read = plainBase64(bytes, at.start, at.end);
    // Not plain base64 (not base64, or wrapped, URL-safe, unpadded): parsed and read as before.
    if (!read) continue;
    parts.push(bytes.subarray(from, at.start), Buffer.from(marker + cut.length, 'latin1'));
    cut.push({ at, read });
    from = at.end;
  }
  if (cut.length === 0) return { text: bytes, marker, cut };
  parts.push(bytes.subarray(from));
  return { text: Buffer.concat(parts), marker, cut };
}

/**
 * Parses the body (UTF-8 JSON, in the chunks it arrived in). With `placeholders`, decoded file
 * fields leave `value` (see {@link DecodedString.removed}). Strings of at least `minDecode` characters that read as base64 are
 * decoded; any other string is left to the route as is (an invalid one gets its usual 400 there).
 * With `spill` (a folder path), each removed file field's bytes are written to a file there and
 * only their head comes back.
 */
export function parseJsonBody(arg: { chunks: Uint8Array[]; minDecode: number; placeholders?: boolean; spill?: string }): ParsedBody {
  let value: unknown;
  // The body's chunks as they arrived are joined here, off the serving thread.
  const bytes = Buffer.concat(arg.chunks);
  // Read before parsing, as on the serving thread (json-body-parser.ts): a deep body is not built.
  if (textNestedDeeperThan(bytes)) return { kind: 'deep' };
  const { text, marker, cut } = cutBase64(bytes, arg.minDecode);
  try {
    value = secureParse(text.toString('utf8'), undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    return { kind: 'invalid' };
  }
  if (nestedDeeperThan(value)) return { kind: 'deep' };
  const buffers: Uint8Array[] = [];
  const decoded: DecodedString[] = [];
  const sources: Uint8Array[] = [];
  const write = arg.spill === undefined ? undefined : spiller(arg.spill);
  /** Sets the string at `path` (the whole body when the path is empty). */
  const put = (path: BodyPath, v: unknown) => {
    if (path.length === 0) value = v;
    else (path.slice(0, -1).reduce((at: unknown, step) => (at as Record<string | number, unknown>)[step], value) as Record<string | number, unknown>)[path.at(-1)!] = v;
  };
  const worth = (v: unknown) => worthVisiting(v, arg.minDecode) || (typeof v === 'string' && v.startsWith(marker));
  // Depth is bounded by the check above, so the explicit stack stays short.
  const stack: [unknown, BodyPath][] = worth(value) ? [[value, []]] : [];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const stand = v.startsWith(marker) ? cut[Number(v.slice(marker.length))] : undefined;
      if (stand) {
        // A string cut out before parsing: already decoded; back in place unless it leaves as bytes.
        const { data, contentType, prefix } = stand.read;
        const length = stand.at.end - stand.at.start;
        decoded.push({ path, contentType, textLength: length - prefix.length });
        if (arg.placeholders && fileField(value, path)) {
          decoded.at(-1)!.removed = write ? { length, prefix, file: write(data), size: data.byteLength } : { length, prefix };
          buffers.push(write ? headOf(data) : data);
          put(path, null);
        } else {
          buffers.push(data);
          put(path, bytes.toString('latin1', stand.at.start, stand.at.end));
        }
        continue;
      }
      const parts = base64Text(v);
      if (!parts) continue;
      const data = decodeBase64Text(parts.text);
      decoded.push({ path, contentType: parts.contentType, textLength: parts.text.length });
      if (arg.placeholders && fileField(value, path)) {
        // The serving thread gets the bytes (or their file), not the string (about 27 MB per attack body to rebuild there).
        decoded.at(-1)!.removed = write
          ? { length: v.length, sourceFile: write(Buffer.from(v, 'utf8'), '.sent'), file: write(data), size: data.byteLength }
          : { length: v.length, source: sources.push(Buffer.from(v, 'utf8')) - 1 };
        buffers.push(write ? headOf(data) : data);
        put(path, null);
      } else buffers.push(data);
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => {
        if (worth(item)) stack.push([item, [...path, i]]);
      });
    } else if (v && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) if (worth(item)) stack.push([item, [...path, k]]);
    }
  }
  return { kind: 'ok', value, buffers, decoded, sources };
}

/** Containers and long strings: nothing else can hold a base64 file. */
function worthVisiting(v: unknown, minDecode: number): boolean {
  return typeof v === 'string' ? v.length >= minDecode : v !== null && typeof v === 'object';
}
