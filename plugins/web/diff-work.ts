/**
 * The change-tracking diff as compute work (issue 24: nothing a caller controls is computed on
 * the thread that serves HTTP). Registered with the compute engine by change-tracking.ts.
 */
import { unifiedDiff } from './line-diff.js';

/** The git-style diff of a page's previous and current markdown. */
export function pageDiff(a: { previous: string; current: string }): string {
  return unifiedDiff(a.previous, a.current);
}
