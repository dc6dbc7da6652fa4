/**
 * The one visibility rule (issue 29): whether a registry target is offered in a lane, and whether
 * a key sees it there. Discovery, the OpenAPI document, `/api/v2/run`, the MCP tools and their
 * discovery mode all ask this module instead of each reading `visibility: 'legacy'` itself.
 *
 * - v2 and the console (which only forwards to v2) offer the public targets; the v1-only jobs
 *   (`visibility: 'legacy'`) stay off them (spec §9.1).
 * - v1 offers exactly what its route table names.
 * - MCP offers every capability, public endpoints, and the endpoints a v1 row runs directly:
 *   agents have no other lane for the v1-only jobs.
 * - the jobs worker runs whatever the registry resolves: the job was planned and checked (policy,
 *   input) when it was submitted.
 *
 * A key sees an offered target when its policy lets it use it (`Access`); running it is judged
 * again by the executor, which answers 403 rather than hiding it.
 */
import type { RegisteredCapability, RegisteredEndpoint, RegisteredPlugin, ResolvedTarget } from '../registry/types.js';
import type { Access } from './access.js';

/** The lanes that turn requests into executor calls. */
export type Lane = 'v1' | 'v2' | 'mcp' | 'jobs' | 'console';

/**
 * What the rule needs to know of the v1 route table, which lives in the server: its targets in
 * the table's own notation (`capability:<id>`, `endpoint:<provider>.<operation>`).
 */
export interface LaneTables {
  v1Targets: ReadonlySet<string>;
}

const NO_TABLES: LaneTables = { v1Targets: new Set() };

/** A resolved target, or a capability or endpoint as the registry holds it. */
export type Visible = ResolvedTarget | RegisteredCapability | RegisteredEndpoint;

function resolved(t: Visible): ResolvedTarget {
  if ('capability' in t || 'endpoint' in t) return t;
  return 'plugin' in t ? { type: 'endpoint', endpoint: t as RegisteredEndpoint } : { type: 'capability', capability: t as RegisteredCapability };
}

function isLegacy(t: ResolvedTarget): boolean {
  return (t.type === 'capability' ? t.capability.def.visibility : t.endpoint.visibility) === 'legacy';
}

/** True when the v1 table has a row for the target (a row may name a capability by an alias). */
function inV1Table(t: ResolvedTarget, tables: LaneTables): boolean {
  if (t.type === 'endpoint') return tables.v1Targets.has(`endpoint:${t.endpoint.id}`);
  // Asked on every v1 call: no array is built for the id and its aliases.
  if (tables.v1Targets.has(`capability:${t.capability.id}`)) return true;
  const aliases = t.capability.def.aliases;
  return aliases !== undefined && aliases.some((id) => tables.v1Targets.has(`capability:${id}`));
}

/** Whether `lane` offers the target at all, whoever asks (documentation, routing, tool lists). */
export function offeredIn(lane: Lane, target: Visible, tables: LaneTables = NO_TABLES): boolean {
  const t = resolved(target);
  switch (lane) {
    case 'v2':
    case 'console':
      return !isLegacy(t);
    case 'v1':
      return inV1Table(t, tables);
    case 'mcp':
      return t.type === 'capability' || !isLegacy(t) || inV1Table(t, tables);
    case 'jobs':
      return true;
  }
}

/**
 * The rule: whether the key whose `access` this is sees the target in `lane`: the lane offers it
 * and the key's policy lets it use it (a capability through at least one of its providers).
 */
export function visibleIn(lane: Lane, target: Visible, access: Access, tables: LaneTables = NO_TABLES): boolean {
  if (!offeredIn(lane, target, tables)) return false;
  const t = resolved(target);
  return t.type === 'capability' ? access.capability(t.capability) : access.endpoint(t.endpoint);
}

/** A provider is visible when at least one of its endpoints is. */
export function providerVisibleIn(lane: Lane, plugin: RegisteredPlugin, access: Access, tables: LaneTables = NO_TABLES): boolean {
  return plugin.endpoints.some((e) => visibleIn(lane, e, access, tables));
}

/** The v1 table's targets as the rule reads them, from its rows. */
export function laneTables(v1Rows: readonly { target: string }[]): LaneTables {
  return { v1Targets: new Set(v1Rows.map((r) => r.target)) };
}
