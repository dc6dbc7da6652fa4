/**
 * A partial assertion for provider tests (issue 29): a test names the parts of a request or a result
 * it is about (`like(fake.last(), { path, headers: { authorization }, body: { model } })`) in one
 * statement instead of destructuring and comparing tuples. An object in `expected` lists only the
 * keys that matter (`{ length: 3 }` for a list of three); an array must have the same length, item
 * by item; anything else is compared strictly. `exactly(value)` marks a part that must be equal as a whole (no extra keys).
 */
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';

const EXACT = Symbol('exactly');

/** A `{ … }` literal of the test (a Buffer or a Date in `expected` is compared whole). */
const isPlain = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(v));

/** Marks `value` as compared whole inside {@link like} (a body that must carry nothing else). */
export function exactly<T>(value: T): T {
  return { [EXACT]: value } as T;
}

/** The parts of `actual` that `expected` names, shaped like `expected` (extra keys left out). */
function picked(actual: unknown, expected: unknown): unknown {
  if (expected && typeof expected === 'object' && EXACT in expected) return actual;
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length ? actual.map((a, i) => picked(a, expected[i])) : actual;
  if (!isPlain(expected) || !actual || typeof actual !== 'object') return actual;
  return Object.fromEntries(Object.keys(expected).map((k) => [k, picked((actual as Record<string, unknown>)[k], expected[k])]));
}

/** `expected` with its `exactly` marks unwrapped, for the comparison and the failure's diff. */
function unmarked(expected: unknown): unknown {
  if (expected && typeof expected === 'object' && EXACT in expected) return (expected as Record<symbol, unknown>)[EXACT];
  if (Array.isArray(expected)) return expected.map(unmarked);
  if (!isPlain(expected)) return expected;
  return Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, unmarked(v)]));
}

/** Fails unless every part `expected` names is in `actual` with that value; the diff shows only those parts. */
export function like(actual: unknown, expected: unknown, message?: string): void {
  const want = unmarked(expected);
  const got = picked(actual, expected);
  if (!isDeepStrictEqual(got, want)) assert.deepEqual(got, want, message);
}
