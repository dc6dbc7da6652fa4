/**
 * The path filters of crawl_site and map_site (issue 25): `includePaths` / `excludePaths`,
 * regular expressions a user writes and the service runs on every URL it finds. A pattern that
 * can backtrack catastrophically would hold a thread for minutes on one crafted path, so the
 * shapes that do it (a repeated group that itself repeats or alternates, back-references) are
 * refused with a 400 before any work, patterns and their count are bounded, and the matching
 * itself runs in the web plugin's compute workers under their time limit, never on the thread
 * that serves requests.
 */
import { Type } from '../sdk.js';

/** Longest pattern accepted, in characters. */
export const MAX_PATH_PATTERN = 200;
/** Most patterns in one list. */
export const MAX_PATH_PATTERNS = 50;
/** Most quantifiers in one pattern (each one multiplies what a failed match may retry). */
const MAX_QUANTIFIERS = 8;

/** The schema of a path-pattern list. */
export const PathPatterns = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: MAX_PATH_PATTERN, description: 'A JavaScript regex.' }), { maxItems: MAX_PATH_PATTERNS, description });

/** The 400 text of a malformed list (wrong type, too long). */
export function pathPatternsMessage(field: string): string {
  return `'${field}' must be a list of at most ${MAX_PATH_PATTERNS} regular expressions of at most ${MAX_PATH_PATTERN} characters each.`;
}

/** Why `pattern` is refused, or undefined when it may run. */
export function checkPathPattern(field: string, pattern: string): string | undefined {
  const shown = pattern.length > 60 ? `${pattern.slice(0, 60)}…` : pattern;
  try {
    new RegExp(pattern);
  } catch {
    return `'${field}' contains an invalid regular expression: ${shown}`;
  }
  const risky = riskyShape(pattern);
  return risky ? `'${field}' contains a regular expression that may take too long to match (${risky}): ${shown}. Simplify it.` : undefined;
}

/** Checks both lists of an input; the first problem found, if any. */
export function checkPathLists(i: { includePaths?: string[]; excludePaths?: string[] }): string | undefined {
  for (const field of ['includePaths', 'excludePaths'] as const) {
    for (const p of i[field] ?? []) {
      const err = checkPathPattern(field, p);
      if (err) return err;
    }
  }
  return undefined;
}

/**
 * A scan of the pattern's groups: a quantified group that contains a quantifier or an
 * alternation (`(a+)+`, `(a|aa)*`, the shapes of exponential backtracking), a back-reference, or
 * too many quantifiers. Character classes and escapes are skipped as units.
 */
function riskyShape(p: string): string | undefined {
  const groups: { inner: boolean }[] = [];
  let quantifiers = 0;
  let lastGroupInner = false;
  let afterGroup = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    const quant = c === '*' || c === '+' || (c === '{' && /^\{\d+(,\d*)?\}/.test(p.slice(i)));
    if (quant) {
      quantifiers++;
      if (afterGroup && lastGroupInner && !(c === '{' && /^\{[01](,[01]?)?\}/.test(p.slice(i)))) return 'a repeated group that repeats or alternates inside';
      if (groups.length) groups[groups.length - 1]!.inner = true;
      if (c === '{') i = p.indexOf('}', i);
      afterGroup = false;
      continue;
    }
    afterGroup = false;
    if (c === '\\') {
      if (/[1-9k]/.test(p[i + 1] ?? '')) return 'a back-reference';
      i++;
    } else if (c === '[') {
      for (i++; i < p.length && p[i] !== ']'; i++) if (p[i] === '\\') i++;
    } else if (c === '(') groups.push({ inner: false });
    else if (c === '|') {
      if (groups.length) groups[groups.length - 1]!.inner = true;
    } else if (c === ')') {
      const g = groups.pop();
      lastGroupInner = g?.inner ?? false;
      if (lastGroupInner && groups.length) groups[groups.length - 1]!.inner = true;
      afterGroup = true;
    }
  }
  return quantifiers > MAX_QUANTIFIERS ? `more than ${MAX_QUANTIFIERS} repetitions` : undefined;
}
