/**
 * The behaviour hints of every MCP tool (issue 28; MCP `ToolAnnotations`), chosen from what the
 * jobs of this service do:
 * - `readOnlyHint` true for all: a tool reads pages, data or the files it is given and answers
 *   with new content (new files go to the file store under new links); none changes or deletes
 *   anything of the caller's, and code runs in a sandbox that is thrown away.
 * - `destructiveHint` false for all, for the same reason.
 * - `idempotentHint` true only for free tools: every paid call spends credits again, so calling
 *   twice is not the same as calling once.
 * - `openWorldHint` false only for tools that never leave this machine (a fixed list, the
 *   sandboxes, which have no network); everything that takes a URL or asks a provider is open.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { CostDescription } from '../../core/credits/cost.js';

/** Tools that work on this machine only, whatever their input. */
const CLOSED_WORLD = new Set(['convert_to_pdf_formats', 'run_js_code', 'run_python_code']);

/** The annotations of a registry tool (its title is the tool's own `title`, not repeated here). */
export function annotationsOf(id: string, cost: CostDescription): ToolAnnotations {
  const free = cost.kind === 'flat' && cost.credits === 0;
  return { readOnlyHint: true, destructiveHint: false, idempotentHint: free, openWorldHint: !CLOSED_WORLD.has(id) };
}

/** The annotations of the discovery mode's own tools: `search` and `details` read the catalogue; `run` runs a job. */
export const DISCOVERY_ANNOTATIONS: Record<'search' | 'details' | 'run', ToolAnnotations> = {
  search: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  details: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
};
