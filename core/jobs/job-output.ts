/**
 * A finished stepwise job's items in the shape of its capability's synchronous output (issue 25:
 * an MCP tool call that ran as a job answers exactly as the tool does). Items are taken in the
 * order the job listed them (a batch's URLs as given, a crawl's pages by link distance), not the
 * order they finished in.
 */
import type { CapabilityDef } from '../plugin/types.js';
import type { JobItemOutcome } from '../plugin/job-step-shapes.js';

/** The name of an output schema's one top-level list (crawl and batch: `results`), where items go. */
function listField(output: unknown): string {
  const props = (output as { properties?: Record<string, { type?: string }> } | undefined)?.properties ?? {};
  const lists = Object.entries(props).filter(([, s]) => s?.type === 'array').map(([n]) => n);
  return lists.length === 1 ? lists[0]! : 'results';
}

/**
 * Builds a capability's synchronous output from a job's items: through the capability's own
 * `jobOutput` where it declares one (crawl and batch add their summary fields), else as the
 * output's one list of items.
 */
export function jobOutput(cap: CapabilityDef | undefined, input: unknown, items: JobItemOutcome[]): Record<string, unknown> {
  if (cap?.jobOutput) return cap.jobOutput(input as never, items);
  return { [listField(cap?.output)]: items.map((i) => i.result) };
}
