/**
 * The direct lane (spec §4.1–4.9, §7.1): each row of the mapping table becomes a route that runs
 * its registry target through the shared executor. Errors are `{ error: "<spec text>" }`, except
 * code-execution failures whose `error` is `{ name, value, traceback }` (spec §2.2).
 */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { CodeExecutionError, NotConfiguredError } from '../../core/errors.js';
import { setupApiScope, inputOf } from '../api-scope.js';
import { withoutBlanks } from '../blank-fields.js';
import { LEGACY_ROUTES } from './legacy-routes.js';

/** Registers the v1 scope. */
export async function v1Routes(app: FastifyInstance, opts: { container: DependencyContainer }): Promise<void> {
  const c = opts.container;
  const registry = c.resolve(TOKENS.Registry);
  const executor = c.resolve(TOKENS.Executor);
  setupApiScope(app, c, 'v1', (err) => ({ error: err instanceof CodeExecutionError ? err.execution : err.message }));

  // The connection check automation platforms run when a user saves a key: who the key is, free.
  app.get('/key-connection', async (req) => {
    req.call.target('operation', 'key-connection');
    return { metadata: { name: req.call.key!.name } };
  });

  for (const row of LEGACY_ROUTES) {
    const [type, id] = row.target.split(':') as ['capability' | 'endpoint', string];
    const target = registry.resolve(type, id);
    app.route({
      method: row.method,
      url: row.path.replace(/^\/api\/v1/, ''),
      handler: async (req, reply) => {
        req.call.target(type, id);
        if (!target) throw new NotConfiguredError();
        const result = await executor.execute({
          requestId: req.id,
          key: req.call.key!,
          target,
          input: withoutBlanks(inputOf(req)),
          signal: abortSignalOf(reply.raw),
          log: req.log,
          onAttempt: (provider) => req.call.attempt(provider),
        });
        req.call.served(result);
        reply.header('X-Credits-Charged', result.credits);
        return result.data;
      },
    });
  }
}

/** An AbortSignal that fires when the client goes away before the response is sent. */
export function abortSignalOf(res: import('node:http').ServerResponse): AbortSignal {
  const ctl = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) ctl.abort(new Error('client disconnected'));
  });
  return ctl.signal;
}
