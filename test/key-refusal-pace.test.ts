/**
 * Refused lookups at a pace per key (issue 24, bench:abuse's made-up ids): a key is answered
 * KEY_REFUSALS_PER_SECOND 404s and 429 RATE_LIMITED at once and then that many a second; a
 * further one is the same answer, sent when its turn comes, while the key's other calls are
 * answered as usual. Through the real server, with a pace of one a second: the order in which
 * answers arrive shows the pace (each later refusal is due a whole second after the one before),
 * not a measured time.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer, type TestResponse } from './helpers/server.js';
import { echoOnlyConfig } from './fixtures/test-plugins.js';
import { clearOfMinuteTurn } from './helpers/rate-window.js';

const madeUp = (s: TestServer, key: string, i: number) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: `made_up_${i}`, input: {} } });
const credits = async (s: TestServer, key: string) => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;

/** Runs `calls` at once and lists their names in the order their answers arrive. */
async function arrival(calls: Record<string, () => Promise<TestResponse>>): Promise<{ order: string[]; answers: Record<string, TestResponse> }> {
  const order: string[] = [];
  const answers: Record<string, TestResponse> = {};
  await Promise.all(
    Object.entries(calls).map(async ([name, call]) => {
      answers[name] = await call();
      order.push(name);
    }),
  );
  return { order, answers };
}

describe('refused lookups at a pace per key (KEY_REFUSALS_PER_SECOND=1)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ serviceConfig: echoOnlyConfig(), env: { KEY_REFUSALS_PER_SECOND: '1' } });
  });
  after(() => s.close());

  it('made-up ids past the pace get the same 404 one a second, free; the key\'s own calls meanwhile are answered at once', async () => {
    const { key } = await s.createKey({ credits: 100, rateLimitPerMinute: 1_000_000 });
    const before = await credits(s, key);
    const first = await madeUp(s, key, 0);
    assert.equal(first.status, 404, first.text);
    // The pace's one refusal is spent: these three are due one, two and three seconds from now.
    const refused = [1, 2, 3].map((i) => madeUp(s, key, i));
    const { order, answers } = await arrival({
      echo: () => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', input: { text: 'still served' } } }),
      balance: () => s.call('GET', '/api/v2/balance', { key }),
      last: () => refused[2]!,
    });
    assert.equal(order.at(-1), 'last', `the key's other calls wait for none of its refusals: ${order.join(', ')}`);
    assert.equal(answers.echo!.status, 200, answers.echo!.text);
    assert.equal(answers.balance!.status, 200, answers.balance!.text);
    for (const [i, res] of [first, ...(await Promise.all(refused))].entries()) {
      assert.equal(res.status, 404, res.text);
      assert.deepEqual([res.json.success, res.json.code, res.json.error], [false, 'NOT_FOUND', first.json.error.replace('made_up_0', `made_up_${i}`)]);
    }
    // The echo call's 10 credits only: four refusals, each free.
    assert.equal(await credits(s, key), before - 10);
    const rows = (await s.call('GET', '/api/v2/usage?status=404', { key })).json.data.items as { objectType: string; credits: number }[];
    assert.equal(rows.length, 4, 'every paced refusal has its usage row');
    assert.ok(rows.every((r) => r.credits === 0));
  });

  it('past the rate limit, the 429s come at the pace too, each with its Retry-After; another key is served meanwhile', async () => {
    await clearOfMinuteTurn();
    const { id, key } = await s.createKey({ credits: 100, rateLimitPerMinute: 1 });
    const { key: other } = await s.createKey({ credits: 100 });
    // The minute's one call, then one refusal at once: the pace is spent.
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).status, 200);
    const firstRefusal = await madeUp(s, key, 0);
    assert.equal(firstRefusal.status, 429, firstRefusal.text);
    const { order, answers } = await arrival({
      laterRefusal: async () => (await Promise.all([madeUp(s, key, 1), madeUp(s, key, 2)]))[1]!,
      otherKey: () => s.call('GET', '/api/v2/balance', { key: other }),
    });
    assert.deepEqual(order, ['otherKey', 'laterRefusal']);
    for (const res of [firstRefusal, answers.laterRefusal!]) {
      assert.equal(res.status, 429, res.text);
      assert.equal(res.json.code, 'RATE_LIMITED');
      assert.ok(Number(res.headers['retry-after']) >= 1, JSON.stringify(res.headers));
    }
    // Read by the admin: the key's own balance call would be rate limited too.
    assert.equal((await s.admin('GET', `/keys/${id}`)).json.credits, 100);
  });

  it('other refusals are not paced: a 400 for the input is answered at once', async () => {
    const { key } = await s.createKey({ credits: 100, rateLimitPerMinute: 1_000_000 });
    assert.equal((await madeUp(s, key, 0)).status, 404);
    const { order, answers } = await arrival({
      laterMadeUp: async () => (await Promise.all([madeUp(s, key, 1), madeUp(s, key, 2)]))[1]!,
      badInput: () => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', input: { text: 'x', delayMs: -1 } } }),
    });
    assert.deepEqual(order, ['badInput', 'laterMadeUp']);
    assert.equal(answers.badInput!.status, 400, answers.badInput!.text);
    assert.equal(answers.laterMadeUp!.status, 404);
  });
});
