/**
 * Builds the registry once at boot (design principle 3): load every plugin listed in
 * `plugins.config.ts`, resolve its configuration, validate everything as a whole — reporting all
 * problems together, each naming the plugin, the field and the fix — then run `setup` and freeze.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import type { PluginDef, PluginLogger, ResolvedConfig } from '../plugin/types.js';
import type { Engines } from '../engines/types.js';
import { endpointId, isSnakeId } from '../plugin/ids.js';
import { resolveSettings } from '../plugin/config-values.js';

export { configEnv } from '../plugin/config-values.js';
import { Registry } from './registry.js';
import { bindingOutputCheck, endpointOutputCheck } from './output-check.js';
import type { ProviderBinding, RegisteredCapability, RegisteredEndpoint, RegisteredPlugin, ServiceConfig } from './types.js';

/** Thrown when the registry is invalid; `problems` lists every problem found. */
export class RegistryError extends Error {
  constructor(readonly problems: string[]) {
    super(`The plugin registry is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n - ${problems.join('\n - ')}`);
    this.name = 'RegistryError';
  }
}

/** Options of a registry build. */
export interface BuildOptions {
  env: Record<string, string | undefined>;
  engines: Engines;
  log: PluginLogger;
  /**
   * Targets the v1 table points at (`capability:x` / `endpoint:p.o`), checked to exist. An
   * endpoint of a plugin that is not listed is allowed: its route answers `Service not
   * configured` until the plugin is added (no flag to flip when it is).
   */
  legacyTargets?: { path: string; target: string }[];
}

/**
 * Compiled checks by schema object, for the life of the process. Plugin schemas are module
 * constants, so a process that starts several servers (a test file) generates each check's code
 * once, at its first start, instead of at every start (a few hundred schemas). A compiled check
 * holds no state. A schema that does not compile is not kept: it fails every start, as before.
 */
const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function compile(schema: TSchema, where: string, problems: string[]): TypeCheck<TSchema> | undefined {
  const known = compiled.get(schema);
  if (known) return known;
  try {
    const check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
    return check;
  } catch (err) {
    problems.push(`${where}: schema does not compile (${(err as Error).message}); fix the TypeBox definition.`);
    return undefined;
  }
}

function checkExamples(examples: { title: string; input: unknown; output?: unknown }[] | undefined, input: TypeCheck<TSchema> | undefined, output: TypeCheck<TSchema> | undefined, where: string, problems: string[]) {
  for (const [i, ex] of (examples ?? []).entries()) {
    if (input && !input.Check(ex.input)) {
      const e = input.Errors(ex.input).First();
      problems.push(`${where}: examples[${i}] ("${ex.title}") input does not match the input schema at '${e?.path || '/'}' (${e?.message}); fix the example or the schema.`);
    }
    if (output && ex.output !== undefined && !output.Check(ex.output)) {
      const e = output.Errors(ex.output).First();
      problems.push(`${where}: examples[${i}] ("${ex.title}") output does not match the output schema at '${e?.path || '/'}' (${e?.message}).`);
    }
  }
}

/**
 * Every property of `schema`, at any depth, that has no description, as a path such as
 * `knowledgeGraph.attributes` or `items[].name` (house style 2: every field is described, because
 * the same schemas are what `/api/v2/details` and the OpenAPI documents show).
 */
export function undocumentedFields(schema: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<object>();
  const walk = (node: unknown, path: string) => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    const s = node as Record<string, unknown>;
    for (const [name, child] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
      const at = path ? `${path}.${name}` : name;
      const d = (child as { description?: unknown } | undefined)?.description;
      if (typeof d !== 'string' || d.trim() === '') out.push(at);
      walk(child, at);
    }
    for (const item of [s.items, s.prefixItems].flat()) walk(item, `${path}[]`);
    for (const k of ['anyOf', 'oneOf', 'allOf']) for (const member of (Array.isArray(s[k]) ? s[k] : []) as unknown[]) walk(member, path);
    walk(s.additionalProperties, `${path}{}`);
    for (const member of Object.values((s.patternProperties ?? {}) as Record<string, unknown>)) walk(member, `${path}{}`);
  };
  walk(schema, '');
  return out;
}

/** Adds a problem per undescribed field of `schema`. */
function checkDescriptions(schema: unknown, side: 'input' | 'output', where: string, problems: string[]) {
  for (const field of undocumentedFields(schema)) {
    problems.push(`${where} ${side}: field '${field}' has no description; add { description: '…' } to its schema (house style 2).`);
  }
}

/** Loads, validates, sets up and freezes the registry. */
export async function buildRegistry(serviceConfig: ServiceConfig, opts: BuildOptions): Promise<Registry> {
  const problems: string[] = [];
  const disabled = new Set(serviceConfig.disabled ?? []);
  const plugins = new Map<string, RegisteredPlugin>();
  const capabilities = new Map<string, RegisteredCapability>();
  const aliases = new Map<string, string>();
  const endpoints = new Map<string, RegisteredEndpoint>();
  const pendingImpls: { plugin: RegisteredPlugin; impl: NonNullable<PluginDef['implements']>[number]; index: number }[] = [];

  for (const [listedId, load] of Object.entries(serviceConfig.plugins)) {
    if (disabled.has(listedId)) continue;
    let def: PluginDef<any, any>;
    try {
      def = (await load()).default;
    } catch (err) {
      problems.push(`plugin '${listedId}': import failed (${(err as Error).message}); check plugins/${listedId}/index.ts.`);
      continue;
    }
    const where = `plugin '${listedId}'`;
    if (!def || typeof def !== 'object') {
      problems.push(`${where}: index.ts must export definePlugin({...}) as default.`);
      continue;
    }
    if (def.id !== listedId) problems.push(`${where}: id is '${def.id}' but it is listed as '${listedId}'; the folder, the id and the config key must match.`);
    if (!isSnakeId(def.id)) problems.push(`${where}: id '${def.id}' is not snake_case (e.g. search_a).`);
    if (def.apiVersion !== 1) problems.push(`${where}: apiVersion must be 1.`);
    if (plugins.has(def.id)) problems.push(`${where}: duplicate plugin id.`);
    const settings = resolveSettings(def.id, def.config, opts.env);
    problems.push(...settings.problems);
    const { missing } = settings;
    const config = settings.config as ResolvedConfig<any>;
    const plugin: RegisteredPlugin = { id: def.id, def, config, configured: missing.length === 0, missing, state: undefined, endpoints: [] };
    plugins.set(def.id, plugin);

    for (const cap of def.capabilities ?? []) {
      const cwhere = `${where} capability '${cap.id}'`;
      if (!isSnakeId(cap.id)) problems.push(`${cwhere}: id is not snake_case.`);
      if (capabilities.has(cap.id) || aliases.has(cap.id)) problems.push(`${cwhere}: duplicate capability id.`);
      if (!cap.cost || typeof cap.cost.reserve !== 'function' || typeof cap.cost.settle !== 'function') problems.push(`${cwhere}: cost must be a cost rule (flat, perUnit, perOutputMb).`);
      const input = compile(cap.input, `${cwhere} input`, problems);
      const output = cap.output ? compile(cap.output, `${cwhere} output`, problems) : undefined;
      checkExamples(cap.examples, input, output, cwhere, problems);
      checkDescriptions(cap.input, 'input', cwhere, problems);
      checkDescriptions(cap.output, 'output', cwhere, problems);
      if (input) capabilities.set(cap.id, { id: cap.id, def: cap, input, output, providers: [] });
      for (const alias of cap.aliases ?? []) {
        if (aliases.has(alias) || capabilities.has(alias)) problems.push(`${cwhere}: alias '${alias}' is already taken.`);
        aliases.set(alias, cap.id);
      }
    }

    for (const ep of def.endpoints ?? []) {
      const id = endpointId(def.id, ep.operation);
      const ewhere = `${where} endpoint '${id}'`;
      if (!isSnakeId(ep.operation)) problems.push(`${ewhere}: operation '${ep.operation}' is not snake_case.`);
      if (endpoints.has(id)) problems.push(`${ewhere}: duplicate endpoint id.`);
      if (typeof ep.run !== 'function') problems.push(`${ewhere}: run must be a function.`);
      if (!ep.cost || typeof ep.cost.reserve !== 'function') problems.push(`${ewhere}: cost must be a cost rule (flat, perUnit, perOutputMb).`);
      const input = compile(ep.input, `${ewhere} input`, problems);
      const output = compile(ep.output, `${ewhere} output`, problems);
      checkExamples(ep.examples, input, output, ewhere, problems);
      checkDescriptions(ep.input, 'input', ewhere, problems);
      checkDescriptions(ep.output, 'output', ewhere, problems);
      if (input && output) {
        const reg: RegisteredEndpoint = { id, plugin, def: ep, input, output, checkOutput: endpointOutputCheck(def.id, output), capabilities: [], visibility: ep.visibility ?? 'public' };
        endpoints.set(id, reg);
        plugin.endpoints.push(reg);
      }
    }
    for (const [index, impl] of (def.implements ?? []).entries()) pendingImpls.push({ plugin, impl, index });
  }

  for (const { plugin, impl, index } of pendingImpls) {
    const where = `plugin '${plugin.id}' implements[${index}]`;
    const capId = aliases.get(impl.capability) ?? impl.capability;
    const cap = capabilities.get(capId);
    const ep = endpoints.get(endpointId(plugin.id, impl.endpoint));
    if (!cap) problems.push(`${where}: unknown capability '${impl.capability}'; declare it or fix the id.`);
    if (!ep) problems.push(`${where}: endpoint '${impl.endpoint}' is not one of this plugin's operations.`);
    if (cap && ep) {
      if (cap.providers.some((p) => p.plugin.id === plugin.id)) problems.push(`${where}: '${plugin.id}' already implements '${capId}'.`);
      cap.providers.push({ plugin, endpoint: ep, impl, checkOutput: bindingOutputCheck(ep, impl, cap.output) });
      ep.capabilities.push(capId);
    }
  }

  for (const [capId, order] of Object.entries(serviceConfig.providerOrder ?? {})) {
    const cap = capabilities.get(capId);
    if (!cap) {
      problems.push(`providerOrder: unknown capability '${capId}'.`);
      continue;
    }
    for (const p of order) {
      if (disabled.has(p)) continue;
      if (!plugins.has(p)) problems.push(`providerOrder.${capId}: unknown provider '${p}'; list the plugin in plugins.config.ts or remove it here.`);
      else if (!cap.providers.some((b) => b.plugin.id === p)) problems.push(`providerOrder.${capId}: provider '${p}' does not implement '${capId}'.`);
    }
    const rank = (b: ProviderBinding) => {
      const i = order.indexOf(b.plugin.id);
      return i === -1 ? order.length : i;
    };
    cap.providers.sort((a, b) => rank(a) - rank(b));
  }

  // An endpoint that serves only direct-lane capabilities is itself direct-lane only, unless it
  // says otherwise: a provider of a v1-only job must not appear on v2 by accident.
  for (const ep of endpoints.values()) {
    if (ep.def.visibility !== undefined || ep.capabilities.length === 0) continue;
    if (ep.capabilities.every((c) => capabilities.get(c)?.def.visibility === 'legacy')) ep.visibility = 'legacy';
  }

  for (const row of opts.legacyTargets ?? []) {
    const [type, id] = row.target.split(':');
    // An endpoint of a plugin this deployment does not load is fine; a listed plugin must have it.
    const exists = type === 'capability' ? capabilities.has(aliases.get(id!) ?? id!) : type === 'endpoint' ? endpoints.has(id!) || !plugins.has(id!.split('.')[0]!) : false;
    if (!exists) problems.push(`v1 route ${row.path}: target '${row.target}' is not registered; add the plugin or fix the row.`);
  }

  if (problems.length > 0) throw new RegistryError(problems);

  for (const plugin of plugins.values()) {
    if (!plugin.configured || !plugin.def.setup) continue;
    try {
      plugin.state = await plugin.def.setup({ config: plugin.config, engines: opts.engines, log: opts.log });
    } catch (err) {
      problems.push(`plugin '${plugin.id}': setup failed (${(err as Error).message}).`);
    }
  }
  if (problems.length > 0) throw new RegistryError(problems);

  return new Registry(plugins, capabilities, aliases, endpoints, serviceConfig.defaultPolicy ?? {});
}
