/**
 * The generated capability reference, `docs/capabilities.md` (issue 29): for each capability id
 * its summary, where it is reached (v2 and v1, or v1 only), its export in `core/catalogue.ts`, its
 * price in the wording the OpenAPI documents and MCP tools use, the usage units that price reads, its input and output fields, and the providers that serve it in
 * the order they are tried. `scripts/readme-tables.ts` writes it beside the README tables and
 * `test/capability-reference.test.ts` fails when the committed file is stale. It is a script, not
 * engine code: it may read the catalogue, the plugins and the server's cost wording together.
 */
import { buildRegistry } from '../core/registry/build.js';
import type { RegisteredCapability } from '../core/registry/types.js';
import type { Engines } from '../core/engines/types.js';
import type { PluginDef } from '../core/plugin/types.js';
import { describeCost } from '../server/cost-text.js';
import type { LegacyRoute } from '../server/legacy-routes.js';
import { fieldRows, fieldTable } from './schema-table.js';
import * as catalogueExports from '../core/catalogue.js';

/** Where the reference is written, from the repository root. */
export const REFERENCE_PATH = 'docs/capabilities.md';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * The registry's view of the given plugins' capabilities: the registry itself binds providers
 * (aliases, provider order, the rest in listing order), so the reference cannot drift from what
 * the server does. `setup` is left out: the reference needs declarations, not running providers.
 */
async function registeredCapabilities(plugins: PluginDef<any, any>[], providerOrder: Record<string, string[]>): Promise<RegisteredCapability[]> {
  const ids = new Set(plugins.map((p) => p.id));
  // Orders may name a deployment's own providers; the reference covers what this repository ships.
  const order = Object.fromEntries(Object.entries(providerOrder).map(([cap, list]) => [cap, list.filter((p) => ids.has(p))]));
  const registry = await buildRegistry(
    { plugins: Object.fromEntries(plugins.map((p) => [p.id, async () => ({ default: { ...p, setup: undefined } })])), providerOrder: order },
    { env: {}, engines: {} as Engines, log: quiet },
  );
  return [...registry.capabilities.values()];
}

function providersText(cap: RegisteredCapability): string {
  if (cap.providers.length === 0) return 'none in this repository yet (the capability answers `Service not configured` until a plugin serves it)';
  return cap.providers.map((p) => `\`${p.plugin.id}\` (endpoint \`${p.endpoint.id}\`${p.plugin.def.managed ? ', service-managed' : ''})`).join(', then ');
}

/** The name `core/catalogue.ts` exports the capability under, for `implement(…)` and its schemas. */
function exportName(cap: RegisteredCapability): string | undefined {
  return Object.entries(catalogueExports).find(([, v]) => v === cap.def)?.[0];
}

/**
 * The unit names the capability's price reads from `ctx.usage.add(unit, n)`: a per-unit rule
 * names its unit; any other rule is asked to settle an example input with a recording units
 * object, so a hand-written rule's units are found without listing them twice.
 */
export function usageUnits(cap: Pick<RegisteredCapability, 'def'>): string[] {
  const d = cap.def;
  const read = new Set<string>();
  if (d.cost.describe.kind === 'per_unit') read.add(d.cost.describe.unit);
  const recorder = new Proxy({} as Record<string, number>, {
    get(_t, unit) {
      if (typeof unit === 'string') read.add(unit);
      return undefined;
    },
  });
  try {
    d.cost.settle(d.examples?.[0]?.input ?? {}, recorder);
  } catch {
    // A rule that cannot price an empty input still named what it read before it failed.
  }
  return [...read];
}

function unitsText(cap: RegisteredCapability): string {
  const units = usageUnits(cap);
  if (!units.length) return 'none (the price does not depend on what the handler reports)';
  return units.map((u) => `\`ctx.usage.add('${u}', n)\``).join(', ');
}

function whereText(cap: RegisteredCapability, routes: LegacyRoute[]): string {
  const v1 = routes.filter((r) => r.target === `capability:${cap.id}`).map((r) => `\`${r.method} ${r.path}\``);
  if (cap.def.visibility === 'legacy') return `v1 only${v1.length ? `, at ${v1.join(', ')}` : ''}; hidden from v2 discovery and \`/api/v2/run\``;
  const v2 = `v2 (\`POST /api/v2/run\` with \`{ "type": "capability", "id": "${cap.id}", "input": … }\`)`;
  return v1.length ? `${v2} and v1 at ${v1.join(', ')}` : v2;
}

/** The fields a job accepts beyond (or unlike) the single call's input. */
function jobOnlyRows(cap: RegisteredCapability) {
  if (!cap.def.jobInput) return [];
  const single = new Map(fieldRows(cap.def.input).map((r) => [r.field, JSON.stringify(r)]));
  return fieldRows(cap.def.jobInput).filter((r) => single.get(r.field) !== JSON.stringify(r));
}

function section(cap: RegisteredCapability, routes: LegacyRoute[]): string {
  const d = cap.def;
  const lines = [`## \`${cap.id}\``, '', `**${d.title}.** ${d.summary}`, ''];
  lines.push(`- **Reached through:** ${whereText(cap, routes)}.`);
  if (d.aliases?.length) lines.push(`- **Aliases:** ${d.aliases.map((a) => `\`${a}\``).join(', ')}.`);
  const name = exportName(cap);
  if (name) lines.push(`- **Catalogue export:** \`${name}\` (fields: \`${name}.input.properties.<field>\`${d.output ? `, \`${name}.output.properties.<field>\`` : ''}).`);
  lines.push(`- **Price:** ${describeCost(d.cost.describe)}`);
  lines.push(`- **Units a handler reports:** ${unitsText(cap)}.`);
  lines.push(`- **Providers, in the order they are tried:** ${providersText(cap)}.`);
  lines.push('', '**Input**', '');
  const input = fieldRows(d.input);
  lines.push(input.length ? fieldTable(input) : 'No fields.');
  const job = jobOnlyRows(cap);
  if (job.length) lines.push('', '**Input as a job** (`POST /api/v2/jobs`): these fields differ from the single call; the rest are the same.', '', fieldTable(job));
  lines.push('', '**Output**', '');
  const output = d.output ? fieldRows(d.output) : [];
  lines.push(output.length ? fieldTable(output) : 'A free-form object shaped by the provider (no output contract).');
  return lines.join('\n');
}

/** The whole reference as markdown, from the given plugins, provider order and v1 table. */
export async function capabilityReference(plugins: PluginDef<any, any>[], providerOrder: Record<string, string[]>, routes: LegacyRoute[]): Promise<string> {
  const caps = await registeredCapabilities(plugins, providerOrder);
  const index = caps.map((c) => `| [\`${c.id}\`](#${c.id}) | ${c.def.visibility === 'legacy' ? 'v1 only' : 'v2 + v1'} | ${describeCost(c.def.cost.describe).replace(/\|/g, '\\|')} | ${c.providers.map((p) => `\`${p.plugin.id}\``).join(', ') || '—'} |`);
  return [
    '# Capability reference',
    '',
    '<!-- Generated by `npm run readme` (scripts/capability-reference.ts); do not edit by hand. -->',
    '',
    'Every capability the catalogue (`core/catalogue.ts`) declares, with the providers this repository ships.',
    'A provider plugin that serves a capability imports its schemas and price from `core/catalogue.ts`',
    'and maps its own endpoint to the input and output below; the README section "Write your own provider',
    'plugin" shows how. Prices are what a caller pays, whichever provider serves the call: a call of a',
    "capability bills the capability's rule below, and only a call of a provider endpoint by its own id bills",
    "the endpoint's `cost`. Each section names the capability's export (`import { answerQuestion } from",
    "'../../core/catalogue.js'`; pass it to `implement(…)`, reuse its price as `answerQuestion.cost` and a field's",
    'schema as `answerQuestion.input.properties.question`) and the units its price reads from the',
    "handler's `ctx.usage.add(unit, n)` (a unit the rule does not read is ignored).",
    '',
    '| Capability | Reached through | Price | Providers (in order) |',
    '|---|---|---|---|',
    ...index,
    '',
    ...caps.map((c) => section(c, routes) + '\n'),
  ].join('\n');
}
