/** Serves the generated API descriptions and a browsable docs page (swagger-ui-dist, shipped by npm). */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { LEGACY_ROUTES } from '../legacy-routes.js';
import { loadRouteAliases } from '../v1/route-aliases.js';
import { retriedOnce } from '../../core/util/retried-once.js';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API documentation</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script>
window.ui = SwaggerUIBundle({
  urls: [{ url: '/openapi/v2.json', name: 'Unified lane (v2)' }, { url: '/openapi/v1.json', name: 'Direct lane (v1)' }],
  dom_id: '#ui',
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout'
});
</script></body></html>`;

/** Registers /openapi.json, /openapi/v1.json, /openapi/v2.json and /docs. */
export async function openApiRoutes(app: FastifyInstance, opts: { container: DependencyContainer }): Promise<void> {
  const registry = opts.container.resolve(TOKENS.Registry);
  const aliases = loadRouteAliases(opts.container.resolve(TOKENS.Settings).v1RouteAliases, LEGACY_ROUTES);
  // The registry is frozen at boot, so each document is built once, when it is first asked for
  // rather than at every start (most starts never serve one: nearly every test server). Kept as
  // a promise so concurrent first requests share one build; a failed build is not kept.
  const documents: Record<string, () => Promise<unknown>> = {
    v1: retriedOnce(async () => (await import('./build.js')).buildV1Document(registry, aliases)),
    v2: retriedOnce(async () => (await import('./build.js')).buildV2Document(registry)),
  };
  const uiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

  app.get('/openapi.json', async () => ({ lanes: { v1: '/openapi/v1.json', v2: '/openapi/v2.json' }, docs: '/docs' }));
  app.get<{ Params: { lane: string } }>('/openapi/:lane', async (req, reply) => {
    const lane = req.params.lane.replace(/\.json$/, '');
    if (!Object.hasOwn(documents, lane)) return reply.code(404).send({ error: 'Unknown lane; use v1 or v2.' });
    return documents[lane]!();
  });
  app.get('/docs', async (_req, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get<{ Params: { file: string } }>('/docs/assets/:file', async (req, reply) => {
    const type = ASSETS[req.params.file];
    if (!type) return reply.code(404).send({ error: 'Not found.' });
    return reply.type(type).header('Cache-Control', 'public, max-age=3600').send(await readFile(join(uiDir, req.params.file)));
  });
}
