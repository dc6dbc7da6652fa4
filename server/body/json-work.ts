/**
 * Work run in a compute worker thread for a large JSON request body (issue 24: parsing and
 * decoding megabyte bodies on the serving thread slowed every other caller). Parses the body
 * exactly as Fastify's own JSON parser would (the same library and options, so the same bodies
 * are refused), checks its depth, and decodes each long base64 string found in it, handing the
 * bytes back (moved, not copied) with the path of the string they came from.
 */
import { createRequire } from 'node:module';
import { base64Text, decodeBase64Text } from '../../core/plugin/inputs.js';
import { nestedDeeperThan } from '../json-depth.js';

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
      decoded: { path: BodyPath; contentType?: string; textLength: number }[];
    };

/**
 * Parses the body (UTF-8 JSON, in the chunks it arrived in). Strings of at least `minDecode` characters that read as base64 are
 * decoded; any other string is left to the route as is (an invalid one gets its usual 400 there).
 */
export function parseJsonBody(arg: { chunks: Uint8Array[]; minDecode: number }): ParsedBody {
  let value: unknown;
  try {
    // The body's chunks as they arrived are joined here, off the serving thread.
    value = secureParse(Buffer.concat(arg.chunks).toString('utf8'), undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    return { kind: 'invalid' };
  }
  if (nestedDeeperThan(value)) return { kind: 'deep' };
  const buffers: Uint8Array[] = [];
  const decoded: { path: BodyPath; contentType?: string; textLength: number }[] = [];
  // Depth is bounded by the check above, so the explicit stack stays short.
  const stack: [unknown, BodyPath][] = worthVisiting(value, arg.minDecode) ? [[value, []]] : [];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const parts = base64Text(v);
      if (!parts) continue;
      buffers.push(decodeBase64Text(parts.text));
      decoded.push({ path, contentType: parts.contentType, textLength: parts.text.length });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => {
        if (worthVisiting(item, arg.minDecode)) stack.push([item, [...path, i]]);
      });
    } else if (v && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) if (worthVisiting(item, arg.minDecode)) stack.push([item, [...path, k]]);
    }
  }
  return { kind: 'ok', value, buffers, decoded };
}

/** Containers and long strings: nothing else can hold a base64 file. */
function worthVisiting(v: unknown, minDecode: number): boolean {
  return typeof v === 'string' ? v.length >= minDecode : v !== null && typeof v === 'object';
}
