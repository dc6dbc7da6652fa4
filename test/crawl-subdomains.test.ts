/**
 * `crawl_site`'s `allowSubdomains` through the real server, as a job (`POST /api/v2/jobs`) and
 * synchronously (`POST /api/v2/run`), on both stores: a crawl of `localhost` follows a link to
 * `sub.localhost` only when asked to, and never one to another site. Names under `localhost`
 * are loopback without DNS (RFC 6761, core/engines/http/guard.ts), so one loopback server
 * answers every host by its Host header; the service reaches it with ALLOW_PRIVATE_NETWORK.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { waitJob } from './helpers/jobs.js';

/** A loopback site whose pages depend on the host asked for; it logs `host path` per request. */
async function serveHosts(): Promise<{ port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  let port = 0;
  const page = (title: string, links: string[]) => `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;
  const pages = (): Record<string, Record<string, string>> => ({
    localhost: {
      '/': page('Home', ['/a', `http://sub.localhost:${port}/s1`, `http://127.0.0.1:${port}/elsewhere`]),
      '/a': page('Page A', ['/']),
    },
    'sub.localhost': {
      '/s1': page('Sub one', ['/s2', `http://localhost:${port}/a`]),
      '/s2': page('Sub two', []),
    },
    '127.0.0.1': { '/elsewhere': page('Another site', []) },
  });
  const server = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const path = (req.url ?? '/').split('?')[0]!;
    hits.push(`${host} ${path}`);
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      return;
    }
    const body = pages()[host]?.[path];
    if (body === undefined) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  return { port, hits, close: () => new Promise((r) => server.close(() => r())) };
}

for (const { name, make } of BACKENDS) {
  describe(`crawl_site allowSubdomains through the server on ${name}`, () => {
    let backend: Backend;
    let s: TestServer;
    let site: Awaited<ReturnType<typeof serveHosts>>;
    before(async () => {
      backend = await make();
      site = await serveHosts();
      s = await startServer({ env: { ...backend.env, ALLOW_PRIVATE_NETWORK: 'true' }, serviceConfig: pluginsConfig(['web']) });
    });
    after(async () => {
      await s?.close();
      await site?.close();
      await backend?.dispose();
    });

    const start = () => `http://localhost:${site.port}/`;
    const expected = (subdomains: boolean) =>
      [`http://localhost:${site.port}/`, `http://localhost:${site.port}/a`, ...(subdomains ? [`http://sub.localhost:${site.port}/s1`, `http://sub.localhost:${site.port}/s2`] : [])].sort();
    const input = (allowSubdomains: boolean) => ({ url: start(), limit: 20, depth: 5, allowSubdomains });

    for (const allowSubdomains of [true, false]) {
      it(`as a job, ${allowSubdomains ? 'follows' : 'does not follow'} links to sub.localhost with allowSubdomains: ${allowSubdomains}`, async () => {
        const { key } = await s.createKey({ credits: 1000 });
        const from = site.hits.length;
        const r = await s.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'crawl_site', input: input(allowSubdomains) } });
        assert.equal(r.status, 202, r.text);
        const job = await waitJob(s, key, r.json.data.id);
        assert.equal(job.status, 'completed', JSON.stringify(job));
        const items = (await s.call('GET', `/api/v2/jobs/${r.json.data.id}?limit=100`, { key })).json.data.results.items as { url: string }[];
        assert.deepEqual(items.map((i) => i.url).sort(), expected(allowSubdomains));
        assert.equal(job.creditsCharged, 10 * items.length);
        const hits = site.hits.slice(from);
        assert.equal(hits.some((h) => h.startsWith('sub.localhost /s')), allowSubdomains, hits.join(', '));
        assert.ok(!hits.includes('127.0.0.1 /elsewhere'), 'another site is never crawled');
      });

      it(`synchronously, ${allowSubdomains ? 'follows' : 'does not follow'} links to sub.localhost with allowSubdomains: ${allowSubdomains}`, async () => {
        const { key } = await s.createKey({ credits: 1000 });
        const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'crawl_site', input: input(allowSubdomains) } });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual((r.json.data.results as { url: string }[]).map((i) => i.url).sort(), expected(allowSubdomains));
        assert.equal(r.json.meta.credits, 10 * r.json.data.results.length);
      });
    }
  });
}
