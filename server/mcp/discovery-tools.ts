/**
 * The discovery mode (issue 17 §2): three tools, `search`, `details` and `run`, the v2 lane's
 * discovery pattern (spec §4.10), for catalogues too large to list as tools. What `search` and
 * `details` show, and what `run` may run, is the key's view of the catalogue (`Discovery` in the `mcp` lane),
 * the same one the tools mode lists, v1-only jobs included.
 */
import { DISCOVERY_ANNOTATIONS } from './annotations.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { validateInput } from '../../core/execution/validate.js';
import type { Registry } from '../../core/registry/registry.js';
import type { RegisteredCapability, RegisteredEndpoint, RegisteredPlugin } from '../../core/registry/types.js';
import type { CallTarget } from './call.js';
import type { Discovery } from '../../core/registry/discovery.js';
import { offeredIn } from '../../core/policy/visibility.js';
import { toolNameOf } from './catalog.js';
import { describeCost } from '../cost-text.js';
import { describeCapability, describeEndpoint } from '../target-details.js';
import { InputError, NotFoundError } from '../../core/errors.js';

const EntryType = Type.Union([Type.Literal('capability'), Type.Literal('endpoint'), Type.Literal('provider')], { description: 'Kind of entry.' });

const SearchInput = Type.Object({
  query: Type.String({ maxLength: 1000, description: 'Keywords, e.g. "scrape a page" or "pdf"; empty lists everything.' }),
  type: Type.Optional(EntryType),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Most entries returned (default 20).' })),
});
const DetailsInput = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 128, description: 'A capability id (`scrape_page`), endpoint id (`search_a.images`) or provider id (`search_a`).' }),
  type: Type.Optional(EntryType),
});
const RunInput = Type.Object({
  type: Type.Union([Type.Literal('capability'), Type.Literal('endpoint')], { description: '`capability` (a job, with provider fallback) or `endpoint` (one provider operation).' }),
  id: Type.String({ minLength: 1, maxLength: 128, description: 'Capability id, or endpoint id `<provider>.<operation>`.' }),
  provider: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Capabilities only: the one provider to use.' })),
  input: Type.Object({}, { additionalProperties: true, description: 'The target input; its JSON Schema is in `details`.' }),
});

const checks = { search: TypeCompiler.Compile(SearchInput), details: TypeCompiler.Compile(DetailsInput), run: TypeCompiler.Compile(RunInput) };

function schema(s: TSchema): Tool['inputSchema'] {
  return JSON.parse(JSON.stringify(s)) as Tool['inputSchema'];
}

/** The three tools of the discovery mode. */
export const DISCOVERY_TOOLS: Tool[] = [
  {
    name: 'search',
    title: 'Search the catalogue',
    description: 'Finds the capabilities (jobs), provider endpoints and providers this API key may use, by keywords, best first; an empty query lists everything. Then call `details` for an entry\'s input schema and cost, and `run` to use it. Free.',
    inputSchema: schema(SearchInput),
    annotations: DISCOVERY_ANNOTATIONS.search,
  },
  {
    name: 'details',
    title: 'Details of a capability, endpoint or provider',
    description: 'Input and output JSON Schemas, cost, providers and examples of one capability or endpoint (or a provider\'s endpoints), by id. Free.',
    inputSchema: schema(DetailsInput),
    annotations: DISCOVERY_ANNOTATIONS.details,
  },
  {
    name: 'run',
    title: 'Run a capability or provider endpoint',
    description: 'Runs a capability (with provider fallback) or a provider endpoint with its input (schema from `details`). Costs what `details` says for that target; failed calls are free.',
    inputSchema: schema(RunInput),
    annotations: DISCOVERY_ANNOTATIONS.run,
  },
];

/** The v2 details of a capability, plus its MCP tool name, whether it is v1-only, and its price in words. */
function capabilityDetails(view: Discovery, cap: RegisteredCapability) {
  return {
    ...describeCapability(view.access, cap),
    tool: toolNameOf({ type: 'capability', capability: cap }),
    directLaneOnly: !offeredIn('v2', cap),
    costText: describeCost(cap.def.cost.describe),
  };
}

/** The v2 details of an endpoint, plus its price in words. */
function endpointDetails(view: Discovery, ep: RegisteredEndpoint) {
  return { ...describeEndpoint(view.access, ep), costText: describeCost(ep.def.cost.describe) };
}

function providerDetails(view: Discovery, p: RegisteredPlugin) {
  return {
    type: 'provider',
    id: p.id,
    title: p.def.title,
    summary: p.def.summary,
    managed: p.def.managed === true,
    configured: p.configured,
    endpoints: p.endpoints.filter((e) => view.endpointVisible(e)).map((e) => e.id),
  };
}

/** Plain JSON (TypeBox's symbol keys dropped), as `structuredContent` must be. */
function plain<T>(v: T): Record<string, unknown> {
  return JSON.parse(JSON.stringify(v)) as Record<string, unknown>;
}

/**
 * The call a discovery tool makes: `search` and `details` are free operations of the lane;
 * `run` is a registry target. `undefined` for a name that is not one of the three.
 */
export function discoveryCall(registry: Registry, view: Discovery, name: string, args: Record<string, unknown>): CallTarget | undefined {
  if (name === 'search') {
    return {
      kind: 'operation',
      id: 'search',
      run: async () => {
        validateInput(checks.search, args);
        const a = args as Static<typeof SearchInput>;
        const items = view.search(a.query, a.type, a.limit ?? 20);
        return plain({ items, count: items.length });
      },
    };
  }
  if (name === 'details') {
    return {
      kind: 'operation',
      id: 'details',
      run: async () => {
        validateInput(checks.details, args);
        const { id } = args as Static<typeof DetailsInput>;
        const cap = registry.capability(id);
        const ep = registry.endpoint(id);
        const plugin = registry.plugins.get(id);
        const type = (args as Static<typeof DetailsInput>).type ?? (cap ? 'capability' : ep ? 'endpoint' : plugin ? 'provider' : undefined);
        if (type === 'capability' && cap && view.capabilityVisible(cap)) return plain(capabilityDetails(view, cap));
        if (type === 'endpoint' && ep && view.endpointVisible(ep)) return plain(endpointDetails(view, ep));
        if (type === 'provider' && plugin && view.providerVisible(plugin)) return plain(providerDetails(view, plugin));
        throw new NotFoundError(`Unknown ${type ?? 'id'}: ${id}`);
      },
    };
  }
  if (name !== 'run') return undefined;
  // A malformed `run` is the lane's own 400, recorded against the `run` operation.
  const invalid = (err: unknown): CallTarget => ({ kind: 'operation', id: 'run', run: async () => { throw err; } });
  try {
    // `input` is checked here only for being an object (the executor checks it against the
    // target's schema): an object stands in for it, so a large body's decoded files in it
    // (core/plugin/predecoded.ts) are not turned back into strings for a check that never reads them.
    const input = (args as { input?: unknown }).input;
    validateInput(checks.run, isPlainObject(input) ? { ...args, input: {} } : args);
  } catch (err) {
    return invalid(err);
  }
  const a = args as Static<typeof RunInput>;
  if (a.type === 'endpoint' && a.provider !== undefined) return invalid(new InputError("Invalid input: 'provider' applies to capabilities only; an endpoint id already names its provider.", { details: { field: 'provider' } }));
  let resolved = registry.resolve(a.type, a.id);
  // Only what the MCP lane offers: endpoints that the v2 lane and the v1 table both hide stay hidden.
  if (resolved && !offeredIn(view.lane, resolved, view.tables)) resolved = undefined;
  return { kind: 'registry', type: a.type, id: a.id, resolved, provider: a.provider, input: a.input };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}
