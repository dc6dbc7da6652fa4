/** `POST /api/v2/run` (spec §4.10): one capability or provider endpoint through the lane adapter. */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { LaneAdapter } from '../../core/lane/adapter.js';
import { ok } from './envelope.js';
import { abortSignalOf } from '../abort-signal.js';
import { RunBody, runBodyValidator, type RunRequest } from './run-body.js';

/** Registers the route. */
export function runRoute(app: FastifyInstance, c: DependencyContainer): void {
  const adapter = new LaneAdapter('v2', c.resolve(TOKENS.Registry), c.resolve(TOKENS.Executor));
  app.post('/run', { schema: { body: RunBody }, validatorCompiler: runBodyValidator }, async (req, reply) => {
    const { type, id, provider, input, options } = req.body as RunRequest;
    const includeNative = (options as Record<string, unknown> | undefined)?.include_native === true;
    const answer = await adapter.run({
      requestId: req.id,
      key: req.call.key!,
      type,
      id,
      provider,
      input,
      includeNative,
      signal: abortSignalOf(reply.raw),
      log: req.log,
      record: req.call,
    });
    const meta: Record<string, unknown> = { type, id: answer.id, ...answer.served };
    if (includeNative) meta.native = answer.native;
    return ok(req, type === 'capability' ? 'capability_result' : 'endpoint_result', answer.data, meta);
  });
}
