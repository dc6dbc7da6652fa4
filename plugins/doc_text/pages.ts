/**
 * The doc-to-text page selection (issue 15): numbers and ranges separated by commas ("1, 2-",
 * "1, 2, 3-7"), open ranges ("3-" to the end, "-3" from the start), and `!n` counting from the
 * end ("!1" is the last page, "!3-!1" the last three).
 */
import { InputError } from '../../core/sdk.js';

const TERM = /^(!?\d+)?\s*(-)?\s*(!?\d+)?$/;

/** The 1-based page numbers `spec` selects in a document of `count` pages, ascending, without repeats. */
export function selectPages(spec: string | undefined, count: number): number[] {
  const all = Array.from({ length: count }, (_, i) => i + 1);
  if (spec === undefined || !spec.trim()) return all;
  const chosen = new Set<number>();
  for (const raw of spec.split(',')) {
    const term = raw.trim();
    const m = TERM.exec(term);
    if (!term || !m || (!m[1] && !m[3])) throw new InputError(`Invalid page selection '${spec.slice(0, 100)}': use numbers and ranges such as "1, 2-" or "!1".`);
    const at = (v: string) => (v.startsWith('!') ? count + 1 - Number(v.slice(1)) : Number(v));
    if (m[1] === '0' || m[3] === '0' || m[1] === '!0' || m[3] === '!0') throw new InputError('Page numbers start at 1 (and "!1" is the last page).');
    const from = m[1] ? at(m[1]) : 1;
    const to = m[2] ? (m[3] ? at(m[3]) : count) : from;
    for (let p = Math.max(1, from); p <= Math.min(count, to); p++) chosen.add(p);
  }
  if (chosen.size === 0) throw new InputError(`No page matches '${spec.slice(0, 100)}': the document has ${count} page${count === 1 ? '' : 's'}.`);
  return [...chosen].sort((a, b) => a - b);
}
