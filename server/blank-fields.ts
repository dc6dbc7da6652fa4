/**
 * Automation platforms send `""` (or `null`) for every field a user leaves blank; the original
 * service reads that as "not given", so its defaults apply (issue 14). A required field left
 * blank therefore fails with the spec's own "required" text, as if it were missing. Every lane
 * that takes a job's input from a client (v1, MCP) cleans it the same way (issue 28).
 */
import { MAX_JSON_DEPTH } from './json-depth.js';

/**
 * The input without `""`/`null` fields, at any depth of plain objects (arrays are kept as sent).
 * Objects deeper than the lanes' nesting limit are kept as sent, so the walk cannot exhaust the
 * stack whatever reaches it (the HTTP lanes refuse such bodies before this runs).
 */
export function withoutBlanks(input: unknown, depth = 0): unknown {
  if (!input || typeof input !== 'object' || Array.isArray(input) || depth > MAX_JSON_DEPTH) return input;
  // Only plain objects are fields to clean: a decoded file (core/plugin/predecoded.ts) is a value.
  const proto = Object.getPrototypeOf(input);
  if (proto !== Object.prototype && proto !== null) return input;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === '' || v === null) continue;
    out[k] = withoutBlanks(v, depth + 1);
  }
  return out;
}
