/**
 * Credits, rate limits, policies and restarts through the real server, on both storage
 * backends (embedded PGlite and PostgreSQL + Redis).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { echoOnlyConfig, testServiceConfig } from './fixtures/test-plugins.js';

const run = (s: TestServer, key: string, input: unknown, extra: Record<string, unknown> = {}) =>
  s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', input, ...extra } });

for (const { name, make } of BACKENDS) {
  describe(`credits and limits on ${name}`, () => {
    let backend: Backend;
    let s: TestServer;
    before(async () => {
      backend = await make();
      // 200 calls at once from one key: the per-key cap on requests in progress (its own test) is lifted.
      s = await startServer({ env: { ...backend.env, KEY_REQUESTS_IN_FLIGHT_MAX: '0' }, serviceConfig: echoOnlyConfig() });
    });
    after(async () => {
      await s?.close();
      await backend?.dispose();
    });

    it('200 simultaneous cost-10 calls on 500 credits: exactly 50 succeed, balance 0, ledger matches', async () => {
      const { key } = await s.createKey({ credits: 500, rateLimitPerMinute: 100000 });
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => run(s, key, { text: `n${i}` })));
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status === 403);
      assert.equal(ok.length, 50);
      assert.equal(refused.length, 150);
      for (const r of refused) {
        assert.equal(r.json.code, 'INSUFFICIENT_CREDITS');
        assert.equal(r.json.error, 'Insufficient credits. Please top up your account.');
        assert.equal(r.json.success, false);
      }
      for (const r of ok) assert.equal(r.json.meta.credits, 10);
      const bal = await s.call('GET', '/api/v2/balance', { key });
      assert.equal(bal.json.data.credits, 0);
      assert.equal(bal.json.data.reserved, 0);
      assert.equal(bal.json.data.spent, 500);
      const tx = await s.call('GET', '/api/v2/transactions?limit=500', { key });
      const charges = tx.json.data.items.filter((e: any) => e.kind === 'charge');
      assert.equal(charges.length, 50);
      assert.equal(charges.reduce((a: number, e: any) => a + e.amount, 0), -500);
      assert.equal(new Set(charges.map((e: any) => e.requestId)).size, 50);
      // Each charge's balance_after is the running balance: 490, 480, … 0, each exactly once.
      assert.deepEqual(charges.map((e: any) => e.balanceAfter).sort((a: number, b: number) => a - b), Array.from({ length: 50 }, (_, i) => i * 10));
      const grant = tx.json.data.items.find((e: any) => e.kind === 'grant');
      assert.equal(grant.amount, 500);
    });

    it('a successful call charges once and reports its cost in the envelope', async () => {
      const { key } = await s.createKey({ credits: 100 });
      const r = await run(s, key, { text: 'hi' });
      assert.equal(r.status, 200);
      assert.deepEqual(r.json.data, { echo: 'hi', by: 'test_echo' });
      assert.equal(r.json.object, 'capability_result');
      assert.equal(r.json.meta.provider, 'test_echo');
      assert.equal(r.headers['x-request-id'], r.json.requestId);
      assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 90);
    });

    it('per-unit costs reserve the maximum and charge started blocks of what was produced', async () => {
      const { key } = await s.createKey({ credits: 150 });
      const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_units', input: { items: 25, produce: 11 } } });
      assert.equal(r.status, 200);
      assert.equal(r.json.meta.credits, 100);
      assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 50);
      const tooMuch = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_units', input: { items: 11, produce: 1 } } });
      assert.equal(tooMuch.status, 403, 'reservation of 100 exceeds the 50 left');
    });

    it('the per-minute rate limit answers 429 with Retry-After and headers on both lanes', async () => {
      const { key } = await s.createKey({ credits: 1000, rateLimitPerMinute: 3 });
      const first = await run(s, key, { text: 'a' });
      assert.equal(first.headers['x-ratelimit-limit'], '3');
      assert.equal(first.headers['x-ratelimit-remaining'], '2');
      const v1 = await s.call('POST', '/api/v1/search-news', { key, body: {} });
      assert.equal(v1.status, 400);
      assert.equal(v1.headers['x-ratelimit-remaining'], '1');
      await s.call('GET', '/api/v2/balance', { key });
      const limited = await run(s, key, { text: 'b' });
      assert.equal(limited.status, 429);
      assert.equal(limited.json.code, 'RATE_LIMITED');
      assert.ok(Number(limited.headers['retry-after']) >= 1);
      assert.equal(limited.headers['x-ratelimit-remaining'], '0');
      const limitedV1 = await s.call('POST', '/api/v1/search-news', { key, body: { query: 'x' } });
      assert.equal(limitedV1.status, 429);
      assert.equal(typeof limitedV1.json.error, 'string');
      assert.ok(Number(limitedV1.headers['retry-after']) >= 1);
      assert.deepEqual([limitedV1.headers['x-ratelimit-limit'], limitedV1.headers['x-ratelimit-remaining']], ['3', '0']);
      assert.equal((await s.call('GET', '/admin/keys/' + 'x', {})).status, 401);
    });

    it('a budget refuses spending past it in the period', async () => {
      const { key } = await s.createKey({ credits: 100, budget: 20 });
      assert.equal((await run(s, key, { text: '1' })).status, 200);
      assert.equal((await run(s, key, { text: '2' })).status, 200);
      const over = await run(s, key, { text: '3' });
      assert.equal(over.status, 403);
      assert.equal(over.json.error, 'Insufficient credits. Please top up your account.');
      const bal = (await s.call('GET', '/api/v2/balance', { key })).json.data;
      assert.equal(bal.credits, 80);
      assert.equal(bal.budget, 20);
      assert.equal(bal.budgetRemaining, 0);
    });

    it('policy: a blocked provider is refused with PROVIDER_NOT_ALLOWED and hidden from discovery', async () => {
      const { key } = await s.createKey({ credits: 100, policy: { block: ['test_echo'] } });
      const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'test_echo.echo', input: { text: 'x' } } });
      assert.equal(r.status, 403);
      assert.equal(r.json.code, 'PROVIDER_NOT_ALLOWED');
      assert.equal(r.json.error, 'Provider not allowed for this API key');
      const cap = await run(s, key, { text: 'x' });
      assert.equal(cap.status, 403);
      assert.equal(cap.json.code, 'PROVIDER_NOT_ALLOWED');
      const found = await s.call('POST', '/api/v2/search', { key, body: { query: 'echo' } });
      assert.deepEqual(found.json.data.items.map((i: any) => i.id), []);
      const details = await s.call('POST', '/api/v2/details', { key, body: { id: 'test_echo.echo' } });
      assert.equal(details.status, 404);
      assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 100);
    });

    it('policy: an allow-list key sees and runs only what it allows', async () => {
      const { key } = await s.createKey({ credits: 100, policy: { allow: ['test_echo'], block: ['*'] } });
      assert.equal((await run(s, key, { text: 'x' })).status, 200);
      const found = await s.call('POST', '/api/v2/search', { key, body: { query: '' , limit: 100 } });
      const ids = found.json.data.items.map((i: any) => i.id).sort();
      assert.ok(ids.includes('test_echo.echo'));
      assert.ok(ids.includes('test_echo'));
      assert.ok(!ids.includes('search_news'), 'capabilities without an allowed provider stay hidden');
      const other = await s.call('POST', '/api/v1/search-news', { key, body: { query: 'x' } });
      assert.equal(other.status, 403);
      assert.deepEqual(other.json, { error: 'Provider not allowed for this API key' });
      // A capability named by neither rule is usable through the allowed provider that serves it.
      assert.ok(ids.includes('test_units'), 'capabilities of an allowed provider are listed');
      const units = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_units', input: { items: 10, produce: 10 } } });
      assert.equal(units.status, 200, units.text);
      assert.equal((await s.call('POST', '/api/v2/details', { key, body: { type: 'capability', id: 'test_units' } })).status, 200);
    });

    it('policy: a rule naming a capability blocks it even through an allowed provider', async () => {
      const { key } = await s.createKey({ credits: 100, policy: { allow: ['test_echo'], block: ['test_units'] } });
      const units = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_units', input: { items: 10, produce: 10 } } });
      assert.equal(units.status, 403);
      assert.equal(units.json.code, 'PROVIDER_NOT_ALLOWED');
      assert.equal((await run(s, key, { text: 'x' })).status, 200);
      assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 90);
    });

    it('admin credit adjustments write ledger entries and never go negative', async () => {
      const { id, key } = await s.createKey({ credits: 10 });
      const top = await s.admin('POST', `/keys/${id}/credits`, { amount: 40, reason: 'top-up' });
      assert.equal(top.status, 200);
      assert.equal(top.json.credits, 50);
      const deduct = await s.admin('POST', `/keys/${id}/credits`, { amount: -60, reason: 'too much' });
      assert.equal(deduct.status, 400);
      const tx = await s.call('GET', '/api/v2/transactions', { key });
      assert.deepEqual(tx.json.data.items.map((e: any) => [e.kind, e.amount, e.balanceAfter]), [['topup', 40, 50], ['grant', 10, 10]]);
      assert.equal(tx.json.data.items[0].reason, 'top-up');
    });
  });

  // One server per store for both: the failing provider is chosen by name, and the chain's
  // own behaviour (which does not depend on the store) is checked on the embedded one.
  describe(`failures release credits on ${name}`, () => {
    let backend: Backend;
    let s: TestServer;
    before(async () => {
      backend = await make();
      s = await startServer({ env: backend.env, serviceConfig: testServiceConfig() });
    });
    after(async () => {
      await s?.close();
      await backend?.dispose();
    });

    it('a failing provider leaves the balance unchanged (v2 and v1 shapes)', async () => {
      const { key } = await s.createKey({ credits: 30 });
      const r = await run(s, key, { text: 'x' }, { provider: 'test_fail' });
      assert.equal(r.status, 502);
      assert.equal(r.json.code, 'UPSTREAM_ERROR');
      assert.equal(r.json.error, 'Failed to retrieve data from test_fail.');
      const bal = (await s.call('GET', '/api/v2/balance', { key })).json.data;
      assert.equal(bal.credits, 30);
      assert.equal(bal.reserved, 0);
      const usage = await s.call('GET', '/api/v2/usage?status=error', { key });
      assert.equal(usage.json.data.items[0].provider, 'test_fail');
      assert.equal(usage.json.data.items[0].credits, 0);
      assert.equal(usage.json.data.items[0].status, 502);
    });

    if (name === 'embedded') {
      describe('fallback along the provider chain', () => {
        it('skips an unconfigured provider, falls back from a failing one, and charges once', async () => {
          const { key } = await s.createKey({ credits: 100 });
          const r = await run(s, key, { text: 'fb' }, { options: { include_native: true } });
          assert.equal(r.status, 200);
          assert.equal(r.json.meta.provider, 'test_echo');
          assert.deepEqual(r.json.meta.fallbacks, [{ provider: 'test_fail', code: 'UPSTREAM_ERROR' }]);
          assert.deepEqual(r.json.meta.native, { raw: 'fb', provider: 'test_echo' });
          assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 90);
        });

        it('an input error from a provider stops the chain and costs nothing', async () => {
          const { key } = await s.createKey({ credits: 100 });
          const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', provider: 'test_echo', input: { text: 'bad-input' } } });
          assert.equal(r.status, 400);
          assert.equal(r.json.error, 'text must not be bad-input');
          assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 100);
        });

        it("a run past its endpoint's time limit is aborted as a 502 and costs nothing", async () => {
          const { key } = await s.createKey({ credits: 100 });
          // The handler would wait 60 s: only the executor's 300 ms limit can end this call.
          const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'test_echo.echo_limited', input: { text: 'x', delayMs: 60000 } } });
          assert.equal(r.status, 502);
          assert.equal(r.json.error, 'The test_echo service timed out.');
          assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 100);
        });

        it('a key over its share of an endpoint (perKeyConcurrency) gets 429 BUSY at no cost; other keys are unaffected', async () => {
          const [{ key }, other] = [await s.createKey({ credits: 100 }), await s.createKey({ credits: 100 })];
          const pair = (k: string) => s.call('POST', '/api/v2/run', { key: k, body: { type: 'endpoint', id: 'test_echo.echo_pair', input: { text: 'x', delayMs: 600 } } });
          const first = [pair(key), pair(key)];
          await new Promise((r) => setTimeout(r, 150));
          const third = await pair(key);
          assert.equal(third.status, 429);
          assert.deepEqual([third.json.code, third.json.error], ['BUSY', 'This API key already has 2 calls of test_echo.echo_pair running; retry when one has finished.']);
          assert.equal((await pair(other.key)).status, 200);
          assert.deepEqual((await Promise.all(first)).map((r) => r.status), [200, 200]);
          assert.equal((await pair(key)).status, 200, 'a slot frees when a call ends');
          assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 70);
        });

        it('choosing an unconfigured provider answers NOT_CONFIGURED; an unknown one is a 400', async () => {
          const { key } = await s.createKey({ credits: 100 });
          const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', provider: 'test_keyed', input: { text: 'x' } } });
          assert.equal(r.status, 500);
          assert.equal(r.json.code, 'NOT_CONFIGURED');
          assert.equal(r.json.error, 'Service not configured. Please contact support.');
          const unknown = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', provider: 'nope', input: { text: 'x' } } });
          assert.equal(unknown.status, 400);
          assert.equal(unknown.json.code, 'INVALID_INPUT');
        });
      });
    }
  });
}
