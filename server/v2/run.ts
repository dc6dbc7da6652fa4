/** `POST /api/v2/run` (spec §4.10): one capability or provider endpoint through the executor. */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { InputError, NotFoundError } from '../../core/errors.js';
import { ok } from './envelope.js';
import { abortSignalOf } from '../v1/routes.js';

const MAX_ID_LENGTH = 128;

/** Registers the route. */
export function runRoute(app: FastifyInstance, c: DependencyContainer): void {
  const registry = c.resolve(TOKENS.Registry);
  const executor = c.resolve(TOKENS.Executor);
  app.post('/run', async (req, reply) => {
    const body = req.body as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new InputError("Invalid input: body must be an object with 'type', 'id' and 'input'.");
    const { type, id, provider, input, options } = body;
    if (type !== 'capability' && type !== 'endpoint') throw new InputError("Invalid input: 'type' must be 'capability' or 'endpoint'.", { details: { field: 'type' } });
    if (typeof id !== 'string' || id.length === 0) throw new InputError("Invalid input: 'id' is required and must be a non-empty string.", { details: { field: 'id' } });
    // Ids are short words; a long one is echoed back and logged, so it is refused before that.
    if (id.length > MAX_ID_LENGTH) throw new InputError(`Invalid input: 'id' must be at most ${MAX_ID_LENGTH} characters.`, { details: { field: 'id' } });
    if (provider !== undefined && (typeof provider !== 'string' || provider.length === 0)) throw new InputError("Invalid input: 'provider' must be a non-empty string.", { details: { field: 'provider' } });
    if (input === undefined || input === null || typeof input !== 'object' || Array.isArray(input)) throw new InputError("Invalid input: 'input' is required and must be an object.", { details: { field: 'input' } });
    if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) throw new InputError("Invalid input: 'options' must be an object.", { details: { field: 'options' } });
    if (type === 'endpoint' && provider !== undefined) throw new InputError("Invalid input: 'provider' applies to capabilities only; an endpoint id already names its provider.", { details: { field: 'provider' } });

    req.call.target(type, id);
    const target = registry.resolve(type, id);
    const hidden = target && (target.type === 'capability' ? target.capability.def.visibility : target.endpoint.visibility) === 'legacy';
    if (!target || hidden) throw new NotFoundError(`Unknown ${type}: ${id}`);
    const canonical = target.type === 'capability' ? target.capability.id : target.endpoint.id;
    req.call.target(type, canonical);
    const includeNative = (options as Record<string, unknown> | undefined)?.include_native === true;
    const result = await executor.execute({
      requestId: req.id,
      key: req.call.key!,
      target,
      provider: provider as string | undefined,
      input,
      includeNative,
      signal: abortSignalOf(reply.raw),
      log: req.log,
      onAttempt: (p) => req.call.attempt(p),
    });
    req.call.served(result);
    const meta: Record<string, unknown> = { type, id: canonical, provider: result.provider, credits: result.credits };
    if (result.fallbacks.length > 0) meta.fallbacks = result.fallbacks;
    if (includeNative) meta.native = result.native ?? null;
    return ok(req, type === 'capability' ? 'capability_result' : 'endpoint_result', result.data, meta);
  });
}
