/**
 * What the MCP lane offers a key (issue 17 §2): the registry's jobs as MCP tools, filtered by the
 * one visibility rule for the `mcp` lane (core/policy/visibility.ts) with the same `Access`
 * decisions v2 discovery and execution use. Unlike v2, the direct-lane-only jobs
 * (`visibility: 'legacy'`: PDF tools, images, code, video/clip/company data) are offered too:
 * agents have no other lane (spec §9.1 keeps them off v2, not off the service).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { TSchema } from '@sinclair/typebox';
import { Discovery } from '../../core/registry/discovery.js';
import type { Registry } from '../../core/registry/registry.js';
import type { Policy } from '../../core/policy/types.js';
import type { LaneTables } from '../../core/policy/visibility.js';
import type { RegisteredCapability, RegisteredEndpoint, ResolvedTarget } from '../../core/registry/types.js';
import { describeCost } from '../cost-text.js';
import { compactInputSchema, compactOutputSchema, withoutSpecRefs } from './compact-schema.js';
import { annotationsOf } from './annotations.js';

/** One registry job offered as a tool, before any key is considered. */
export interface ToolEntry {
  /** MCP tool name: the capability id, or the endpoint id with `.` written `__`. */
  name: string;
  type: 'capability' | 'endpoint';
  /** The capability or endpoint id. */
  id: string;
  target: ResolvedTarget;
  tool: Tool;
}

/**
 * MCP tool names: clients that hand tools to a model API accept `[A-Za-z0-9_-]{1,64}` only, so an
 * endpoint id's `.` is written `__` (ids are snake_case with single underscores: no collision).
 */
export function toolNameOf(target: ResolvedTarget): string {
  return target.type === 'capability' ? target.capability.id : target.endpoint.id.replace('.', '__');
}

/**
 * A TypeBox schema as plain JSON Schema (TypeBox's symbol keys dropped). MCP wants an object
 * schema at the top of every tool's input and output.
 */
function plainSchema(schema: TSchema | undefined): Record<string, unknown> | undefined {
  if (!schema) return undefined;
  const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  if (plain.type !== 'object') return { type: 'object', ...plain };
  return plain;
}

// Output schemas carry no `format` (compactOutputSchema drops it): clients check
// `structuredContent` with their own format rules (the SDK's Ajv `uri` is stricter than the
// executor's check), and a valid answer must never be refused by a client over a format reading.

/** The tool's summary and price; the title is the tool's `title`, and the server's instructions say once that failures are free. */
function describe(summary: string, cost: string, note?: string): string {
  return withoutSpecRefs([summary, note, `Cost: ${cost}`].filter(Boolean).join('\n\n'));
}

function capabilityTool(cap: RegisteredCapability): Tool {
  const output = plainSchema(cap.def.output);
  const aliases = cap.def.aliases?.length ? `Also known as: ${cap.def.aliases.join(', ')}.` : undefined;
  return {
    name: cap.id,
    title: cap.def.title,
    description: describe(cap.def.summary, describeCost(cap.def.cost.describe), aliases),
    inputSchema: compactInputSchema(plainSchema(cap.def.input)!) as Tool['inputSchema'],
    ...(output ? { outputSchema: compactOutputSchema(output) as Tool['outputSchema'] } : {}),
    annotations: annotationsOf(cap.id, cap.def.cost.describe),
  };
}

function endpointTool(ep: RegisteredEndpoint): Tool {
  const output = plainSchema(ep.def.output);
  return {
    name: toolNameOf({ type: 'endpoint', endpoint: ep }),
    title: ep.def.title,
    description: describe(ep.def.summary, describeCost(ep.def.cost.describe), `Served by ${ep.plugin.def.title}.`),
    inputSchema: compactInputSchema(plainSchema(ep.def.input)!) as Tool['inputSchema'],
    ...(output ? { outputSchema: compactOutputSchema(output) as Tool['outputSchema'] } : {}),
    annotations: annotationsOf(ep.id, ep.def.cost.describe),
  };
}

/**
 * Every job of the registry as a tool, built once at boot: each capability (public or v1-only),
 * and each provider endpoint that is a job of its own, i.e. serves no capability (e.g.
 * `search_a.images`) or is a v1 row's target. Endpoints that serve a capability are reached
 * through that capability's tool (its provider chain and fallback), or `run` in discovery mode.
 */
export class ToolCatalog {
  private readonly entries: ToolEntry[] = [];
  private readonly byName = new Map<string, ToolEntry>();

  constructor(private readonly registry: Registry, /** The v1 table's targets (its endpoint rows are jobs of their own). */ readonly tables: LaneTables) {
    for (const capability of registry.capabilities.values()) this.add({ type: 'capability', capability }, capabilityTool(capability));
    for (const endpoint of registry.endpoints.values()) {
      const ownJob = endpoint.capabilities.length === 0 || tables.v1Targets.has(`endpoint:${endpoint.id}`);
      if (ownJob) this.add({ type: 'endpoint', endpoint }, endpointTool(endpoint));
    }
  }

  private add(target: ResolvedTarget, tool: Tool): void {
    const id = target.type === 'capability' ? target.capability.id : target.endpoint.id;
    const entry = { name: tool.name, type: target.type, id, target, tool };
    this.entries.push(entry);
    this.byName.set(entry.name, entry);
  }

  /** The key's view: discovery in the MCP lane, filtered by its policy. */
  discovery(policy: Policy | undefined): Discovery {
    return new Discovery(this.registry, policy, 'mcp', this.tables);
  }

  /**
   * The tools a key is shown: those it may use (policy) that can work on this deployment (a
   * configured provider the key may use). A tool that could only answer `Service not configured`
   * would cost an agent's context and a wasted call.
   */
  visible(policy: Policy | undefined): ToolEntry[] {
    const view = this.discovery(policy);
    return this.entries.filter(({ target }) => {
      if (target.type === 'endpoint') return view.endpointVisible(target.endpoint) && target.endpoint.plugin.configured;
      const cap = target.capability;
      return view.capabilityVisible(cap) && view.access.providers(cap).some((b) => b.plugin.configured);
    });
  }

  /** Every tool, whatever a key may use or the deployment has configured (documentation). */
  all(): readonly ToolEntry[] {
    return this.entries;
  }

  /** A tool by name, whatever the key may do (the executor judges policy when it is called). */
  byToolName(name: string): ToolEntry | undefined {
    return this.byName.get(name);
  }
}
