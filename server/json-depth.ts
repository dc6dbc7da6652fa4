/**
 * How deep a request's JSON may nest (issue 24 finding 7). JSON.parse copes with any depth, but
 * everything after it that walks a value (blank-field cleaning, schema checks of free-form
 * fields, JSON.stringify into logs and usage rows) recurses; a 60 KB body nested 10,000 levels
 * overflowed the stack. No input of this service needs more than a few levels.
 */

/** The deepest nesting of arrays and objects a request body (or an MCP tool's arguments) may have. */
export const MAX_JSON_DEPTH = 64;

/** The 400 text for a body nested deeper than the limit. */
export const TOO_DEEP_MESSAGE = `Invalid input: JSON nested deeper than ${MAX_JSON_DEPTH} levels.`;

/**
 * True when `value` nests arrays/objects deeper than `limit`. Iterative (an explicit stack of
 * pending values with their depths), so a hostile value cannot overflow the call stack here;
 * it stops at the first value past the limit.
 */
export function nestedDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (!value || typeof value !== 'object') return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const child of children) if (child && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
