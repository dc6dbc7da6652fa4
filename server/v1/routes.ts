/**
 * The direct lane (spec §4.1–4.9, §7.1): each row of the mapping table becomes a route that runs
 * its registry target through the lane adapter and the shared executor. Errors are
 * `{ error: "<spec text>" }`, except code-execution failures whose `error` is
 * `{ name, value, traceback }` (spec §2.2).
 */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { CodeExecutionError } from '../../core/errors.js';
import { LaneAdapter } from '../../core/lane/adapter.js';
import { laneTables } from '../../core/policy/visibility.js';
import { setupApiScope, inputOf } from '../api-scope.js';
import { withoutBlanks } from '../blank-fields.js';
import { LEGACY_ROUTES, type LegacyRoute } from '../legacy-routes.js';
import { loadRouteAliases, type AliasRoute } from './route-aliases.js';
import { bodyLimitFor } from '../hooks/body-limits.js';
import { abortSignalOf } from '../abort-signal.js';

/** Registers the v1 scope. */
export async function v1Routes(app: FastifyInstance, opts: { container: DependencyContainer }): Promise<void> {
  const c = opts.container;
  const registry = c.resolve(TOKENS.Registry);
  const adapter = new LaneAdapter('v1', registry, c.resolve(TOKENS.Executor), laneTables(LEGACY_ROUTES));
  setupApiScope(app, c, 'v1', (err) => ({ error: err instanceof CodeExecutionError ? err.execution : err.message }));

  // The connection check automation platforms run when a user saves a key: who the key is, free.
  app.get('/key-connection', async (req) => {
    req.call.target('operation', 'key-connection');
    return { metadata: { name: req.call.key!.name } };
  });

  // Operator aliases (V1_ROUTE_ALIASES) run their route's target: same input, price and usage rows.
  const settings = c.resolve(TOKENS.Settings);
  const aliases = loadRouteAliases(settings.v1RouteAliases, LEGACY_ROUTES);
  for (const row of [...LEGACY_ROUTES, ...aliases] as (LegacyRoute | AliasRoute)[]) {
    const [type, id] = row.target.split(':') as ['capability' | 'endpoint', string];
    const target = registry.resolve(type, id);
    app.route({
      method: row.method,
      url: row.path.replace(/^\/api\/v1/, ''),
      // An alias takes the body limit of the route it stands for (files travel through some).
      ...('aliasOf' in row ? { bodyLimit: bodyLimitFor(row.aliasOf, settings) } : {}),
      handler: async (req, reply) => {
        const answer = await adapter.run({
          requestId: req.id,
          key: req.call.key!,
          type,
          id,
          resolved: target,
          input: withoutBlanks(inputOf(req)),
          signal: abortSignalOf(reply.raw),
          log: req.log,
          record: req.call,
        });
        reply.header('X-Credits-Charged', answer.served.credits);
        return answer.data;
      },
    });
  }
}
