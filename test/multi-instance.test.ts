/**
 * Several instances behind a load balancer share credits and rate limits exactly (PostgreSQL +
 * Redis), and a restart keeps keys, balances and usage (both backends).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServer, startServers, type TestServer } from './helpers/server.js';
import { BACKENDS, postgresBackend, type Backend } from './helpers/storage.js';
import { echoOnlyConfig } from './fixtures/test-plugins.js';

const run = (s: TestServer, key: string, text: string) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', input: { text } } });

describe('two instances sharing PostgreSQL + Redis', () => {
  let backend: Backend;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    backend = await postgresBackend();
    // Two processes, as behind a load balancer: nothing is shared but PostgreSQL and Redis. 100
    // calls at once from one key on each: the per-key cap on requests in progress is lifted.
    const env = { ...backend.env, KEY_REQUESTS_IN_FLIGHT_MAX: '0' };
    [a, b] = (await startServers([
      { env, serviceConfig: echoOnlyConfig(), processMode: true },
      { env: { ...env, KEY_CACHE_TTL_MS: '0' }, serviceConfig: echoOnlyConfig(), processMode: true },
    ])) as [TestServer, TestServer];
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await backend?.dispose();
  });

  it('200 calls split across both on 500 credits: exactly 50 succeed, balance 0', async () => {
    const { key } = await a.createKey({ credits: 500, rateLimitPerMinute: 100000 });
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => run(i % 2 ? a : b, key, `m${i}`)));
    assert.equal(results.filter((r) => r.status === 200).length, 50);
    assert.equal(results.filter((r) => r.status === 403).length, 150);
    for (const s of [a, b]) {
      const bal = (await s.call('GET', '/api/v2/balance', { key })).json.data;
      assert.equal(bal.credits, 0);
      assert.equal(bal.reserved, 0);
    }
    const tx = await b.call('GET', '/api/v2/transactions?limit=500', { key });
    const charges = tx.json.data.items.filter((e: any) => e.kind === 'charge');
    assert.equal(charges.reduce((s2: number, e: any) => s2 + e.amount, 0), -500);
  });

  it('the rate limit holds across both instances', async () => {
    const { key } = await a.createKey({ credits: 10000, rateLimitPerMinute: 10 });
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => run(i % 2 ? a : b, key, `r${i}`)));
    assert.equal(results.filter((r) => r.status === 200).length, 10);
    assert.equal(results.filter((r) => r.status === 429).length, 6);
  });

  it('a key deactivated on one instance is refused there at once and by an uncached instance too', async () => {
    const { id, key } = await a.createKey({ credits: 100 });
    assert.equal((await a.call('GET', '/api/v2/balance', { key })).status, 200);
    assert.equal((await b.call('GET', '/api/v2/balance', { key })).status, 200);
    await a.admin('PATCH', `/keys/${id}`, { active: false });
    assert.equal((await a.call('GET', '/api/v2/balance', { key })).status, 401);
    assert.equal((await b.call('GET', '/api/v2/balance', { key })).status, 401);
  });
});

for (const { name, make } of BACKENDS) {
  describe(`restart on ${name}`, () => {
    let backend: Backend;
    before(async () => {
      backend = await make();
    });
    after(() => backend?.dispose());

    it('keeps keys, balances, ledger and usage', async () => {
      let s = await startServer({ env: backend.env, serviceConfig: echoOnlyConfig() });
      const dataDir = s.dataDir;
      const { id, key } = await s.createKey({ credits: 100, name: 'durable' });
      assert.equal((await run(s, key, 'before')).status, 200);
      assert.equal((await run(s, key, 'before2')).status, 200);
      await s.close({ keepData: true });
      s = await startServer({ env: backend.env, serviceConfig: echoOnlyConfig(), dataDir });
      try {
        const bal = await s.call('GET', '/api/v2/balance', { key });
        assert.equal(bal.status, 200);
        assert.equal(bal.json.data.credits, 80);
        const usage = await s.call('GET', '/api/v2/usage?objectId=test_echo', { key });
        assert.equal(usage.json.data.items.length, 2);
        assert.equal((await s.admin('GET', `/keys/${id}`)).json.name, 'durable');
        const tx = await s.call('GET', '/api/v2/transactions', { key });
        assert.equal(tx.json.data.items.filter((e: any) => e.kind === 'charge').length, 2);
      } finally {
        await s.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  });
}
