/**
 * The README's table of MCP tools and what each costs (issue 17 §6), from the same catalogue and
 * cost sentences the tools themselves carry, for the README generator (scripts/readme-tables.ts)
 * so the table cannot drift from what agents are shown.
 */
import type { Registry } from '../../core/registry/registry.js';
import { LEGACY_ROUTES } from '../legacy-routes.js';
import { laneTables, offeredIn } from '../../core/policy/visibility.js';
import { ToolCatalog } from './catalog.js';
import { describeCost } from '../cost-text.js';

/** Markdown rows `| tool | kind | cost |` for every tool of the catalogue (tools mode, no key filter). */
export function mcpToolsTable(registry: Registry): string {
  const rows = new ToolCatalog(registry, laneTables(LEGACY_ROUTES)).all().map(({ name, target }) => {
    const [kind, cost] =
      target.type === 'capability'
        ? [offeredIn('v2', target) ? 'capability' : 'v1-only job', target.capability.def.cost.describe]
        : [`endpoint \`${target.endpoint.id}\``, target.endpoint.def.cost.describe];
    return `| \`${name}\` | ${kind} | ${describeCost(cost)} |`;
  });
  return ['| Tool | Kind | Cost (failed calls are free) |', '|---|---|---|', ...rows].join('\n');
}
