/**
 * Wires the metrics to the service (issue 18 "Operations"): usage rows, HTTP answers, provider
 * attempts of the executor, group-commit batches; and exposes them as `GET /metrics` behind
 * ADMIN_TOKEN, or on a listener of its own at METRICS_PORT (no token: bind it where only the
 * scraper reaches).
 */
import { createServer, type Server } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Executor } from '../../core/execution/executor.js';
import type { UsageLog } from '../../core/usage/usage-log.js';
import { observeBatches } from '../../core/storage/group-commit.js';
import type { ServiceMetrics } from './service-metrics.js';

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Counts provider failures and fallbacks as an observer of the executor (the executor itself
 * stays free of metrics). Returns the unsubscribe.
 */
export function observeExecutor(executor: Executor, metrics: ServiceMetrics): () => void {
  return executor.observe({
    finished({ result, error, provider }) {
      if (result) for (const f of result.fallbacks) metrics.providerFailed(f.provider, f.code, true);
      else if (provider) metrics.providerFailed(provider, error.code, false);
    },
  });
}

function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** Subscribes the metrics and mounts `/metrics` on the app when no separate port is set. */
export function wireMetrics(app: FastifyInstance, deps: { metrics: ServiceMetrics; usage: UsageLog; executor: Executor; adminToken?: string; separatePort: boolean }): void {
  const { metrics } = deps;
  const undo = [deps.usage.observe((row) => metrics.row(row)), observeBatches((name, size) => metrics.batch(name, size)), observeExecutor(deps.executor, metrics)];
  app.addHook('onResponse', (req, reply, done) => {
    metrics.answer(req.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.addHook('onClose', async () => {
    for (const u of undo) u();
  });
  if (deps.separatePort || !deps.adminToken) return;
  const token = deps.adminToken;
  app.get('/metrics', async (req, reply) => {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m || !sameSecret(m[1]!, token)) return reply.code(401).send({ error: 'Invalid or missing admin token.' });
    return reply.type(CONTENT_TYPE).send(await metrics.text());
  });
}

/** A listener of its own serving only `GET /metrics` (METRICS_PORT). */
export async function listenMetrics(metrics: ServiceMetrics, port: number, host: string): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found."}');
      return;
    }
    metrics.text().then(
      (text) => res.writeHead(200, { 'content-type': CONTENT_TYPE }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address();
  return { server, port: typeof addr === 'object' && addr ? addr.port : port };
}
