/** `POST /api/v2/search` and `POST /api/v2/details` (spec §4.10), filtered by the key's policy. */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { NotFoundError } from '../../core/errors.js';
import { Discovery, type EntryType } from '../../core/registry/discovery.js';
import { configEnv } from '../../core/registry/build.js';
import type { RegisteredEndpoint, RegisteredPlugin } from '../../core/registry/types.js';
import { describeCapability, describeEndpoint } from '../target-details.js';
import { ok } from './envelope.js';
import { DetailsBody, SearchBody, detailsBodyValidator, searchBodyValidator, searchOf, type DetailsRequest, type SearchRequest } from './discovery-body.js';

function describeProvider(p: RegisteredPlugin, visible: RegisteredEndpoint[]) {
  return {
    type: 'provider',
    id: p.id,
    title: p.def.title,
    summary: p.def.summary,
    tags: p.def.tags ?? [],
    managed: p.def.managed === true,
    configured: p.configured,
    // Names of the settings an operator must provide; never their values.
    missingSettings: p.missing,
    settings: Object.entries(p.def.config ?? {}).map(([name, f]) => ({ env: configEnv(p.id, name, f as never), description: (f as { description: string }).description, required: (f as { required?: boolean }).required === true })),
    endpoints: visible.map((e) => e.id),
  };
}

/** Registers search and details. */
export function discoveryRoutes(app: FastifyInstance, c: DependencyContainer): void {
  const registry = c.resolve(TOKENS.Registry);

  app.post('/search', { schema: { body: SearchBody }, validatorCompiler: searchBodyValidator }, async (req) => {
    const { query: q, type, limit = 20 } = searchOf(req.body as Record<string, unknown>) as SearchRequest;
    req.call.target('operation', 'search');
    const items = new Discovery(registry, req.call.key!.policy, 'v2').search(q, type, limit);
    return ok(req, 'search_result', { items }, { query: q, type: type ?? null, count: items.length });
  });

  app.post('/details', { schema: { body: DetailsBody }, validatorCompiler: detailsBodyValidator }, async (req) => {
    const body = req.body as DetailsRequest;
    const id = body.id;
    let type: EntryType | undefined = body.type;
    const related = body.includeRelated === true;
    req.call.target('operation', 'details');
    const key = req.call.key!;
    const view = new Discovery(registry, key.policy, 'v2');
    const cap = registry.capability(id);
    const ep = registry.endpoint(id);
    const plugin = registry.plugins.get(id);
    if (!type) type = cap ? 'capability' : ep ? 'endpoint' : plugin ? 'provider' : undefined;
    let data: Record<string, unknown> | undefined;
    if (type === 'capability' && cap && view.capabilityVisible(cap)) {
      data = describeCapability(view.access, cap);
      if (related) {
        const tags = new Set(cap.def.tags ?? []);
        data.related = {
          providers: cap.providers.filter((b) => view.providerVisible(b.plugin)).map((b) => ({ id: b.plugin.id, title: b.plugin.def.title, configured: b.plugin.configured })),
          endpoints: cap.providers.filter((b) => view.endpointVisible(b.endpoint)).map((b) => b.endpoint.id),
          capabilities: [...registry.capabilities.values()].filter((o) => o.id !== cap.id && view.capabilityVisible(o) && (o.def.tags ?? []).some((t) => tags.has(t))).map((o) => o.id),
        };
      }
    } else if (type === 'endpoint' && ep && view.endpointVisible(ep)) {
      data = describeEndpoint(view.access, ep);
      if (related) {
        data.related = {
          provider: { id: ep.plugin.id, title: ep.plugin.def.title, configured: ep.plugin.configured },
          capabilities: ep.capabilities.filter((id) => { const c2 = registry.capability(id); return c2 ? view.capabilityVisible(c2) : false; }),
          endpoints: ep.plugin.endpoints.filter((e) => e.id !== ep.id && view.endpointVisible(e)).map((e) => e.id),
        };
      }
    } else if (type === 'provider' && plugin && view.providerVisible(plugin)) {
      const visible = plugin.endpoints.filter((e) => view.endpointVisible(e));
      data = describeProvider(plugin, visible);
      if (related) {
        const caps = new Set(visible.flatMap((e) => e.capabilities));
        data.related = {
          capabilities: [...caps].filter((id) => { const c2 = registry.capability(id); return c2 ? view.capabilityVisible(c2) : false; }),
          endpoints: visible.map((e) => e.id),
        };
      }
    }
    if (!data) throw new NotFoundError(`Unknown ${type ?? 'id'}: ${id}`);
    return ok(req, 'details', data, { includeRelated: related });
  });
}
