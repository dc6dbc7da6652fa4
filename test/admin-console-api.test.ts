/**
 * What the admin API gained for the console (issue 26): stats aggregated in the database (on the
 * embedded store and on PostgreSQL), key search and rotation, a key's policy with the rule that
 * decided each entry, providers, engines, files and usage across keys.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { BACKENDS, type Backend } from './helpers/storage.js';

function startPage(): Promise<{ url: string; close(): void }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>T</title><h1>Stats page</h1>');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() })));
}

for (const backend of BACKENDS) {
  describe(`admin stats on ${backend.name}`, () => {
    let b: Backend;
    let s: TestServer;
    let page: Awaited<ReturnType<typeof startPage>>;
    let keyId: string;
    before(async () => {
      b = await backend.make();
      page = await startPage();
      s = await startServer({ serviceConfig: pluginsConfig(['web', 'search_a']), env: { ...b.env, ALLOW_PRIVATE_NETWORK: 'true' } });
      const k = await s.createKey({ credits: 100 });
      keyId = k.id;
      for (let i = 0; i < 3; i++) assert.equal((await s.call('GET', '/api/v2/balance', { key: k.key })).status, 200);
      assert.equal((await s.call('POST', '/api/v2/run', { key: k.key, body: { type: 'capability', id: 'no_such_thing', input: {} } })).status, 404);
      const scraped = await s.call('POST', '/api/v2/run', { key: k.key, body: { type: 'capability', id: 'scrape_page', input: { url: page.url, renderJs: false } } });
      assert.equal(scraped.status, 200, scraped.text);
    });
    after(async () => {
      await s?.close();
      page?.close();
      await b?.dispose();
    });

    it('counts calls, errors and credits per hour, with latency percentiles, every bucket present', async () => {
      const r = await s.admin('GET', '/stats');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.bucket, 'hour');
      assert.ok(r.json.buckets.length === 24 || r.json.buckets.length === 25);
      for (const bk of r.json.buckets) assert.match(bk.start, /^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/);
      const sum = (f: string) => r.json.buckets.reduce((n: number, bk: Record<string, number>) => n + bk[f]!, 0);
      assert.equal(sum('calls'), 5);
      assert.equal(sum('errors'), 1);
      assert.equal(sum('credits'), 10);
      const busy = r.json.buckets.filter((bk: { calls: number }) => bk.calls > 0);
      for (const bk of busy) assert.ok(Number.isInteger(bk.p50Ms) && bk.p95Ms >= bk.p50Ms);
      assert.ok(r.json.buckets.some((bk: { calls: number; p50Ms: null }) => bk.calls === 0 && bk.p50Ms === null));
    });

    it('splits buckets by lane, capability, status and key; days start at midnight UTC', async () => {
      const groups = async (groupBy: string) => {
        const r = await s.admin('GET', `/stats?groupBy=${groupBy}`);
        assert.equal(r.status, 200, r.text);
        const m: Record<string, number> = {};
        for (const bk of r.json.buckets) for (const g of bk.groups) m[g.key] = (m[g.key] ?? 0) + g.calls;
        return m;
      };
      assert.deepEqual(await groups('lane'), { v2: 5 });
      assert.deepEqual(await groups('key'), { [keyId]: 5 });
      assert.deepEqual(await groups('status'), { '200': 4, '404': 1 });
      const caps = await groups('capability');
      assert.equal(caps.balance, 3);
      assert.equal(caps.scrape_page, 1);
      assert.deepEqual(await groups('provider'), { '': 4, web: 1 });
      const to = new Date();
      const from = new Date(to.getTime() - 3 * 86_400_000);
      const days = await s.admin('GET', `/stats?bucket=day&from=${from.toISOString()}&to=${to.toISOString()}`);
      assert.equal(days.status, 200);
      assert.equal(days.json.buckets.length, 4);
      for (const bk of days.json.buckets) assert.match(bk.start, /T00:00:00\.000Z$/);
      assert.equal(days.json.buckets.at(-1).calls, 5);
    });

    it('refuses bad questions with a 400 naming the field', async () => {
      for (const [q, text] of [
        ['bucket=week', /'bucket' must be hour or day/],
        ['groupBy=colour', /'groupBy' must be one of/],
        ['from=yesterday', /'from' must be an ISO 8601 date-time/],
        ['from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z', /'from' must be before 'to'/],
        ['from=2000-01-01T00:00:00Z', /at most 4000 buckets/],
      ] as const) {
        const r = await s.admin('GET', `/stats?${q}`);
        assert.equal(r.status, 400, q);
        assert.match(r.json.error, text);
      }
    });

    // After the stats tests (their counts come from the before hook's calls), on the embedded
    // store's server: these do not depend on the store, and need no server of their own.
    if (backend.name === 'embedded') {
      describe('admin API for the console', () => {
        it('rotates a key: the new secret works, the old one is refused from then on', async () => {
          const k = await s.createKey({ credits: 5, name: 'Rotating' });
          assert.equal((await s.call('GET', '/api/v2/balance', { key: k.key })).status, 200);
          const r = await s.admin('POST', `/keys/${k.id}/rotate`);
          assert.equal(r.status, 200);
          assert.match(r.json.key, /^cia_/);
          assert.notEqual(r.json.key, k.key);
          assert.equal(r.json.prefix, r.json.key.slice(0, 10));
          assert.equal(r.json.credits, 5);
          assert.equal((await s.call('GET', '/api/v2/balance', { key: k.key })).status, 401);
          assert.equal((await s.call('GET', '/api/v2/balance', { key: r.json.key })).status, 200);
          assert.equal((await s.admin('POST', '/keys/key_nope/rotate')).status, 404);
          assert.equal((await s.admin('GET', `/keys/${k.id}`)).json.key, undefined, 'the secret is shown only once');
        });

        it('searches keys by name, id or prefix, case-insensitively, LIKE wildcards literal', async () => {
          const a = await s.createKey({ name: 'Alpha 100% robots' });
          await s.createKey({ name: 'Beta' });
          const names = async (q: string) => (await s.admin('GET', `/keys?search=${encodeURIComponent(q)}`)).json.items.map((k: { name: string }) => k.name);
          assert.deepEqual(await names('ALPHA'), ['Alpha 100% robots']);
          assert.deepEqual(await names('100%'), ['Alpha 100% robots']);
          assert.deepEqual(await names('0% r'), ['Alpha 100% robots']);
          assert.deepEqual(await names('%'), ['Alpha 100% robots']);
          assert.deepEqual(await names(a.id), ['Alpha 100% robots']);
          assert.ok((await names('')).length >= 2);
        });

        it("reports a key's policy: every provider and capability, the effective decision and the rule that made it", async () => {
          const k = await s.createKey({ policy: { block: ['web'] } });
          const r = await s.admin('GET', `/keys/${k.id}/policy`);
          assert.equal(r.status, 200, r.text);
          const web = r.json.providers.find((p: { id: string }) => p.id === 'web');
          assert.deepEqual({ allowed: web.allowed, by: web.by, rule: web.rule }, { allowed: false, by: 'key', rule: 'web' });
          const search = r.json.providers.find((p: { id: string }) => p.id === 'search_a');
          assert.deepEqual({ allowed: search.allowed, by: search.by }, { allowed: true, by: 'default' });
          const scrape = r.json.capabilities.find((c: { id: string }) => c.id === 'scrape_page');
          assert.equal(scrape.allowed, false);
          assert.equal(scrape.rule, 'web');
          // What the report says is what the key gets.
          assert.equal((await s.call('POST', '/api/v2/run', { key: k.key, body: { type: 'capability', id: 'scrape_page', input: { url: 'http://127.0.0.1:1/' } } })).status, 403);
          assert.equal((await s.admin('GET', '/keys/key_nope/policy')).status, 404);
        });

        it('lists providers (missing settings by name), engines, files, and usage across keys', async () => {
          const p = await s.admin('GET', '/providers');
          assert.equal(p.status, 200);
          const search = p.json.items.find((i: { id: string }) => i.id === 'search_a');
          assert.equal(search.configured, false);
          assert.deepEqual(search.missingSettings, ['SEARCH_A_API_KEY']);
          assert.ok(p.json.items.find((i: { id: string }) => i.id === 'web').configured);
          const e = await s.admin('GET', '/engines');
          assert.equal(e.status, 200);
          assert.ok(Array.isArray(e.json.items));
          const f = await s.admin('GET', '/files');
          assert.equal(f.status, 200);
          assert.deepEqual(f.json.items, []);
          const k = await s.createKey();
          await s.call('GET', '/api/v2/balance', { key: k.key });
          const u = await s.admin('GET', `/usage?keyId=${k.id}`);
          assert.equal(u.status, 200);
          assert.deepEqual(u.json.items.map((r: { keyId: string; objectId: string }) => [r.keyId, r.objectId]), [[k.id, 'balance']]);
          assert.ok((await s.admin('GET', '/usage')).json.items.length >= 1);
        });
      });
    }
  });
}
