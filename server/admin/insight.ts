/**
 * What an admin client needs to see beyond keys and credits (issue 26): a key's effective policy
 * with the rule that decided each entry, the providers and their health, the engines' figures,
 * the produced files and the usage log across keys.
 */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { NotFoundError } from '../../core/errors.js';
import { Access } from '../../core/policy/access.js';
import { capabilityBlocked, explain, type Decision } from '../../core/policy/decide.js';
import type { Policy } from '../../core/policy/types.js';
import type { Registry } from '../../core/registry/registry.js';
import { usageStats } from '../../core/usage/usage-stats.js';
import { usageQuery } from '../usage-query.js';

/** Every provider and capability as `key` sees it, each with the rule that decided (core/policy/decide.ts). */
export function policyReport(registry: Registry, key: Policy) {
  const dep = registry.defaultPolicy;
  const access = new Access(key, dep);
  const providers = [...registry.plugins.values()].map((p) => ({
    id: p.id,
    title: p.def.title,
    configured: p.configured,
    ...explain(key, dep, { provider: p.id }),
  }));
  const capabilities = [...registry.capabilities.values()].map((cap) => {
    const allowed = access.capability(cap);
    const through = access.providers(cap).map((b) => b.plugin.id);
    let why: Decision;
    if (capabilityBlocked(key, dep, cap.id)) why = explain(key, dep, { capability: cap.id });
    else if (cap.providers.length === 0) why = explain(key, dep, { capability: cap.id });
    else {
      // The first usable provider's rule let it through; with none, the first provider's rule refused it.
      const b = cap.providers.find((x) => access.provider(cap, x)) ?? cap.providers[0]!;
      why = explain(key, dep, { capability: cap.id, endpoint: b.endpoint.id, provider: b.plugin.id });
    }
    return { id: cap.id, title: cap.def.title, by: why.by, rule: why.rule, allowed, providers: cap.providers.map((b) => b.plugin.id), allowedProviders: through };
  });
  return { policy: key, defaultPolicy: dep, providers, capabilities };
}

/** Registers the routes in the admin scope. */
export function insightRoutes(app: FastifyInstance, c: DependencyContainer): void {
  const registry = c.resolve(TOKENS.Registry);
  const keys = c.resolve(TOKENS.Keys);
  const db = c.resolve(TOKENS.Db);
  const usage = c.resolve(TOKENS.Usage);
  const files = c.resolve(TOKENS.Engines).files;

  app.get<{ Params: { id: string } }>('/keys/:id/policy', async (req) => {
    if (/[\u0000-\u001f\u007f]/.test(req.params.id)) throw new NotFoundError('API key not found.');
    const key = await keys.get(req.params.id);
    return { keyId: key.id, ...policyReport(registry, key.policy) };
  });

  app.get('/providers', async () => {
    await usage.flush();
    const to = new Date();
    const day = await usageStats(db, { from: new Date(to.getTime() - 86_400_000), to, bucket: 'day', groupBy: 'provider' });
    const recent = new Map<string, { calls: number; errors: number }>();
    for (const b of day) for (const g of b.groups ?? []) {
      const r = recent.get(g.key) ?? { calls: 0, errors: 0 };
      recent.set(g.key, { calls: r.calls + g.calls, errors: r.errors + g.errors });
    }
    const fallbacks = new Map<string, number>();
    const metric = (await app.metrics.registry.getSingleMetric('cia_fallbacks_total')?.get())?.values ?? [];
    for (const v of metric) fallbacks.set(String(v.labels.provider), (fallbacks.get(String(v.labels.provider)) ?? 0) + v.value);
    const items = [...registry.plugins.values()].map((p) => {
      const r = recent.get(p.id) ?? { calls: 0, errors: 0 };
      return {
        id: p.id,
        title: p.def.title,
        managed: p.def.managed === true,
        configured: p.configured,
        // Names only: a setting's value never leaves the process.
        missingSettings: p.missing,
        capabilities: [...new Set(p.endpoints.flatMap((e) => e.capabilities))],
        callsLastDay: r.calls,
        errorsLastDay: r.errors,
        errorRateLastDay: r.calls ? r.errors / r.calls : 0,
        fallbacksSinceStart: fallbacks.get(p.id) ?? 0,
      };
    });
    return { items };
  });

  // The figures /metrics reports for the engines already started (reading starts none).
  app.get('/engines', async () => {
    const engines: Record<string, Record<string, number>> = {};
    for (const m of await app.metrics.registry.getMetricsAsJSON()) {
      if (!m.name.startsWith('cia_engine_')) continue;
      const field = m.name.slice('cia_engine_'.length);
      for (const v of m.values) {
        const name = String(v.labels.engine ?? '');
        if (!name) continue;
        (engines[name] ??= {})[field] = v.value;
      }
    }
    return { items: Object.entries(engines).map(([engine, figures]) => ({ engine, ...figures })) };
  });

  app.get('/files', async () => {
    const list = files.list ? await files.list() : [];
    return { items: list.map((f) => ({ ...f, expiresAt: f.expiresAt.toISOString() })) };
  });

  // Every key's usage (or one key's with keyId), with the filters of GET /api/v2/usage.
  app.get('/usage', async (req) => {
    const raw = req.query as Record<string, unknown>;
    const q = usageQuery(raw);
    const keyId = typeof raw.keyId === 'string' && raw.keyId && !/[\u0000-\u001f\u007f]/.test(raw.keyId) ? raw.keyId : null;
    return { items: await usage.list(keyId, q), page: q.page, limit: q.limit };
  });
}
