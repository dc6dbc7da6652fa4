/**
 * Work run in a compute worker thread for a large JSON request body (issue 24: parsing and
 * decoding megabyte bodies on the serving thread slowed every other caller). Parses the body
 * exactly as Fastify's own JSON parser would (the same library and options, so the same bodies
 * are refused), checks its depth, and decodes each long base64 string found in it, handing the
 * bytes back (moved, not copied) with the path of the string they came from.
 */
import { createRequire } from 'node:module';
import { base64Text, decodeBase64Text } from '../../core/plugin/inputs.js';
import { nestedDeeperThan, textNestedDeeperThan } from '../json-depth.js';

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
      /** The decoded bytes, one per entry of `decoded` (moved to the serving thread). */
      buffers: Uint8Array[];
      decoded: DecodedString[];
      /** The removed strings' UTF-8 bytes (moved too), named by `removed.source`. */
      sources: Uint8Array[];
    };

/** One decoded string: where it was and how it read. */
export interface DecodedString {
  path: BodyPath;
  contentType?: string;
  textLength: number;
  /**
   * Set when the string was taken out of `value` (left `null` there) because it is a file field:
   * its length, and where its UTF-8 bytes are in `sources`, should anything need the string back.
   */
  removed?: { length: number; source: number };
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

/**
 * Parses the body (UTF-8 JSON, in the chunks it arrived in). With `placeholders`, decoded file
 * fields leave `value` (see {@link DecodedString.removed}). Strings of at least `minDecode` characters that read as base64 are
 * decoded; any other string is left to the route as is (an invalid one gets its usual 400 there).
 */
export function parseJsonBody(arg: { chunks: Uint8Array[]; minDecode: number; placeholders?: boolean }): ParsedBody {
  let value: unknown;
  // The body's chunks as they arrived are joined here, off the serving thread.
  const bytes = Buffer.concat(arg.chunks);
  // Read before parsing, as on the serving thread (json-body-parser.ts): a deep body is not built.
  if (textNestedDeeperThan(bytes)) return { kind: 'deep' };
  try {
    value = secureParse(bytes.toString('utf8'), undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    return { kind: 'invalid' };
  }
  if (nestedDeeperThan(value)) return { kind: 'deep' };
  const buffers: Uint8Array[] = [];
  const decoded: DecodedString[] = [];
  const sources: Uint8Array[] = [];
  // Depth is bounded by the check above, so the explicit stack stays short.
  const stack: [unknown, BodyPath][] = worthVisiting(value, arg.minDecode) ? [[value, []]] : [];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const parts = base64Text(v);
      if (!parts) continue;
      buffers.push(decodeBase64Text(parts.text));
      decoded.push({ path, contentType: parts.contentType, textLength: parts.text.length });
      if (arg.placeholders && fileField(value, path)) {
        decoded.at(-1)!.removed = { length: v.length, source: sources.push(Buffer.from(v, 'utf8')) - 1 };
        // The serving thread gets the bytes, not the string (about 27 MB per attack body to rebuild there).
        (path.slice(0, -1).reduce((at: unknown, step) => (at as Record<string | number, unknown>)[step], value) as Record<string | number, unknown>)[path.at(-1)!] = null;
      }
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => {
        if (worthVisiting(item, arg.minDecode)) stack.push([item, [...path, i]]);
      });
    } else if (v && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) if (worthVisiting(item, arg.minDecode)) stack.push([item, [...path, k]]);
    }
  }
  return { kind: 'ok', value, buffers, decoded, sources };
}

/** Containers and long strings: nothing else can hold a base64 file. */
function worthVisiting(v: unknown, minDecode: number): boolean {
  return typeof v === 'string' ? v.length >= minDecode : v !== null && typeof v === 'object';
}
