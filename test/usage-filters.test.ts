/**
 * `GET /api/v2/usage` filters as the original service's CLI sends them (issue 19): `objectType=
 * provider` with or without an `objectId`, and control characters refused as the caller's error
 * (issue 18 finding 5) instead of a 500 from the database.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { testServiceConfig } from './fixtures/test-plugins.js';

describe('usage filters', () => {
  let s: TestServer;
  let key: string;

  before(async () => {
    s = await startServer({ serviceConfig: testServiceConfig() });
    ({ key } = await s.createKey({ credits: 1000 }));
    // One capability run served by test_echo (after test_fail failed), one direct endpoint call, one balance read.
    assert.equal((await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', input: { text: 'a' } } })).status, 200);
    assert.equal((await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'test_fail.echo', input: { text: 'b' } } })).status, 502);
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).status, 200);
  });
  after(async () => s?.close());

  const usage = async (query: string) => {
    const r = await s.call('GET', `/api/v2/usage?${query}`, { key });
    return { status: r.status, body: r.json, items: (r.json?.data?.items ?? []) as { objectId: string; provider: string | null }[] };
  };

  it('objectType=provider with objectId lists the rows that provider served or failed', async () => {
    const r = await usage('objectType=provider&objectId=test_fail');
    assert.equal(r.status, 200);
    assert.deepEqual(r.items.map((i) => [i.objectId, i.provider]), [['test_fail.echo', 'test_fail']]);
    const echo = await usage('objectType=provider&objectId=test_echo');
    assert.deepEqual(echo.items.map((i) => [i.objectId, i.provider]), [['test_echo', 'test_echo']]);
  });

  it('objectType=provider alone lists every provider-served row, not lane operations', async () => {
    const r = await usage('objectType=provider');
    assert.equal(r.status, 200);
    assert.deepEqual(r.items.map((i) => i.objectId).sort(), ['test_echo', 'test_fail.echo']);
  });

  it('a usage row carries the units its handler reported (pages, reviews, model tokens…)', async () => {
    const run = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_units', input: { items: 30, produce: 23 } } });
    assert.equal(run.status, 200, run.text);
    const r = await usage('objectId=test_units');
    assert.equal(r.status, 200);
    assert.deepEqual(r.items.map((i) => (i as { units?: unknown }).units), [{ items: 23 }]);
    const echo = await usage('objectType=capability&objectId=test_echo');
    assert.deepEqual(echo.items.map((i) => (i as { units?: unknown }).units), [null]);
  });

  it('an unknown objectType names the accepted values', async () => {
    const r = await usage('objectType=planet');
    assert.equal(r.status, 400);
    assert.match(r.body.error, /capability, endpoint, operation, provider/);
  });

  it('control characters in a filter are a 400', async () => {
    for (const q of ['objectId=%00', 'provider=a%00b', 'objectType=provider&objectId=x%01y']) {
      const r = await usage(q);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'INVALID_INPUT');
    }
  });
});
