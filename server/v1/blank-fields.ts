/**
 * Automation platforms send `""` (or `null`) for every field a user leaves blank; the original
 * service reads that as "not given", so its defaults apply (issue 14). A required field left
 * blank therefore fails with the spec's own "required" text, as if it were missing.
 */

/** The input without `""`/`null` fields, at any depth of plain objects (arrays are kept as sent). */
export function withoutBlanks(input: unknown): unknown {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === '' || v === null) continue;
    out[k] = withoutBlanks(v);
  }
  return out;
}
