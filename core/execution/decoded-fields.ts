/**
 * The schema check's view of decoded file fields (issue 24): a large body's base64 file reaches
 * the input as a DecodedBase64, not its string (core/plugin/predecoded.ts). Where the target's
 * schema reads that field as a file (a string with no pattern, format, constant or length cap:
 * only its type and minimum length matter) the check runs on a stand-in of the same length, so
 * its answer is the one the string would get, and the placeholder stays for the handler.
 * Anywhere else the string is put back, so only a file field ever holds a placeholder.
 */
import type { TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { DecodedBase64 } from '../plugin/predecoded.js';

/** Where a placeholder sits: its container, its key there and the JSON pointer TypeBox reports. */
interface Slot {
  parent: Record<string | number, unknown>;
  key: string | number;
  value: DecodedBase64;
  pointer: string;
}

/** The placeholders in `input` (plain objects and arrays walked, to the lanes' depth limit). */
function slotsOf(input: unknown, pointer = '', depth = 0, out: Slot[] = []): Slot[] {
  if (depth > 64 || !input || typeof input !== 'object' || input instanceof DecodedBase64) return out;
  const proto = Object.getPrototypeOf(input);
  if (!Array.isArray(input) && proto !== Object.prototype && proto !== null) return out;
  const parent = input as Record<string | number, unknown>;
  const entries: [string | number, unknown][] = Array.isArray(input) ? input.map((v, i) => [i, v]) : Object.entries(input);
  for (const [key, v] of entries) {
    const at = `${pointer}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (v instanceof DecodedBase64) out.push({ parent, key, value: v, pointer: at });
    else if (v && typeof v === 'object') slotsOf(v, at, depth + 1, out);
  }
  return out;
}

/**
 * The schema of a file field: a string whose verdict depends on nothing but the value's type and
 * length, and with no length cap (every file field's shape; a capped string beside `inputMethod`,
 * such as a prompt, is text the handler reads as text).
 */
function fileString(schema: unknown): boolean {
  const s = schema as { type?: unknown; pattern?: unknown; format?: unknown; const?: unknown; enum?: unknown; maxLength?: unknown };
  return s?.type === 'string' && s.pattern === undefined && s.format === undefined && s.const === undefined && s.enum === undefined && s.maxLength === undefined;
}

/**
 * A string of `length` characters that costs almost no memory: repeat() builds it from halves
 * that stay unjoined while only its length is read.
 */
function standIn(length: number): string {
  return 'A'.repeat(length);
}

/**
 * The placeholders in `input`, each with whether the schema reads it as a plain file string.
 * Every placeholder is back in place when this returns.
 */
function classify(check: TypeCheck<TSchema>, input: unknown): { slot: Slot; file: boolean }[] {
  const slots = slotsOf(input);
  if (slots.length === 0) return [];
  // Where does the schema stand at each placeholder? A number there fails the check with the
  // schema of that very spot (a placeholder under a union reports the union: not plain).
  for (const s of slots) s.parent[s.key] = 0;
  const plain = new Set<string>();
  const byPointer = new Map(slots.map((s) => [s.pointer, s]));
  try {
    for (const e of check.Errors(input)) if (byPointer.has(e.path) && fileString(e.schema)) plain.add(e.path);
  } finally {
    for (const s of slots) s.parent[s.key] = s.value;
  }
  return slots.map((slot) => ({ slot, file: plain.has(slot.pointer) }));
}

/**
 * Turns every placeholder in `input` the schema does not read as a file back into its string,
 * for good, read from its files without blocking the thread (issue 24: a large body's long
 * `prompt` or `pages` beside `inputMethod: 'base64'` was rebuilt with blocking reads of up to the
 * body's size on the serving thread, only to be checked, often refused, as text). The executor
 * does this before its checks, so {@link withDecodedFields} then meets file fields only.
 */
export async function settleDecodedFields(check: TypeCheck<TSchema>, input: unknown): Promise<void> {
  const texts = classify(check, input).filter((c) => !c.file);
  for (const { slot } of texts) slot.parent[slot.key] = await slot.value.textAsync();
}

/**
 * Runs `checkWith` on `input` with each placeholder the schema reads as a plain string replaced
 * by a stand-in of its length; every other placeholder is turned back into its string for good
 * (with blocking reads: a caller on the serving thread settles them first, {@link settleDecodedFields}).
 * The placeholders are back in place when this returns or throws.
 */
export function withDecodedFields<T>(check: TypeCheck<TSchema>, input: unknown, checkWith: () => T): T {
  const slots = classify(check, input);
  if (slots.length === 0) return checkWith();
  for (const { slot, file } of slots) slot.parent[slot.key] = file ? standIn(slot.value.length) : slot.value.text();
  try {
    return checkWith();
  } finally {
    for (const { slot, file } of slots) if (file) slot.parent[slot.key] = slot.value;
  }
}

/** True when `input` holds a placeholder anywhere. */
export function hasDecodedFields(input: unknown): boolean {
  return slotsOf(input).length > 0;
}
