/**
 * Requests in progress per key (issue 24, bench:abuse's office-bomb floods): a key may have
 * KEY_REQUESTS_IN_FLIGHT_MAX requests in progress on an instance, decided before its body is read,
 * and a large body refused for its input keeps its place for KEY_REFUSAL_HOLD_MS. Past it a call
 * waits up to a second for a place, then gets a free 429 BUSY with Retry-After; other keys are
 * served meanwhile. Through the real server.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { echoOnlyConfig } from './fixtures/test-plugins.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const busyText = (max: number, hold: string) =>
  `This key has too many requests in progress on this server: at most ${max} at once (a large request refused for its input counts for ${hold} s after its answer). Please retry once some of them are done.`;

/** One echo call through /api/v2/run; `delayMs` keeps it in progress that long. */
const echo = (s: TestServer, key: string, input: Record<string, unknown>) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', input } });
const credits = async (s: TestServer, key: string) => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;

/**
 * Waits until `calls` echo calls of the key are running: each reserves its 10 credits after it took
 * its place, so the reservation shows they hold their places (instead of guessing how long getting
 * there takes on a loaded machine).
 */
async function running(s: TestServer, keyId: string, calls: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await s.admin('GET', `/keys/${keyId}`)).json.reserved === calls * 10) return;
    await sleep(20);
  }
  assert.fail(`${calls} calls never ran at once`);
}

describe('requests in progress per key (KEY_REQUESTS_IN_FLIGHT_MAX=2, KEY_REFUSAL_HOLD_MS=2000)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ serviceConfig: echoOnlyConfig(), env: { KEY_REQUESTS_IN_FLIGHT_MAX: '2', KEY_REFUSAL_HOLD_MS: '2000' } });
  });
  after(() => s.close());

  it('a third call while two run is a free 429 BUSY with Retry-After; another key is served meanwhile; the key is served again once its calls end', async () => {
    const { id, key } = await s.createKey({ credits: 100 });
    const { key: other } = await s.createKey({ credits: 100 });
    // Two seconds: past the third call's one second of waiting for a place.
    const slow = [echo(s, key, { text: 'a', delayMs: 2000 }), echo(s, key, { text: 'b', delayMs: 2000 })];
    await running(s, id, 2);
    const third = await echo(s, key, { text: 'c' });
    assert.equal(third.status, 429, third.text);
    assert.deepEqual([third.json.code, third.json.error], ['BUSY', busyText(2, '2')]);
    assert.equal(third.headers['retry-after'], '2');
    const meanwhile = await echo(s, other, { text: 'other key' });
    assert.equal(meanwhile.status, 200, meanwhile.text);
    assert.deepEqual((await Promise.all(slow)).map((r) => r.status), [200, 200]);
    const again = await echo(s, key, { text: 'd' });
    assert.equal(again.status, 200, again.text);
    // Three calls served at 10 each; the refusal cost nothing.
    assert.equal(await credits(s, key), 70);
  });

  it('the same on the v1 lane, in its own envelope', async () => {
    const { id, key } = await s.createKey({ credits: 100 });
    const slow = [echo(s, key, { text: 'a', delayMs: 2000 }), echo(s, key, { text: 'b', delayMs: 2000 })];
    await running(s, id, 2);
    const v1 = await s.call('POST', '/api/v1/scrape', { key, body: { url: 'https://example.com' } });
    assert.equal(v1.status, 429, v1.text);
    assert.deepEqual(v1.json, { error: busyText(2, '2') });
    assert.equal(v1.headers['retry-after'], '2');
    await Promise.all(slow);
  });

  it('a call a little over the count waits for a place and is served once one frees', async () => {
    const { id, key } = await s.createKey({ credits: 100 });
    const slow = [echo(s, key, { text: 'a', delayMs: 600 }), echo(s, key, { text: 'b', delayMs: 600 })];
    await running(s, id, 2);
    const third = await echo(s, key, { text: 'c' });
    assert.equal(third.status, 200, third.text);
    assert.deepEqual((await Promise.all(slow)).map((r) => r.status), [200, 200]);
    assert.equal(await credits(s, key), 70);
  });

  it('a call whose client hangs up while it waits takes no place with it', async () => {
    const { id, key } = await s.createKey({ credits: 100 });
    // Past the 300 ms the hanging-up client waits.
    const slow = [echo(s, key, { text: 'a', delayMs: 1000 }), echo(s, key, { text: 'b', delayMs: 1000 })];
    await running(s, id, 2);
    const gone = fetch(s.url + '/api/v2/run', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'capability', id: 'test_echo', input: { text: 'c' } }),
      signal: AbortSignal.timeout(300),
    });
    await assert.rejects(gone);
    assert.deepEqual((await Promise.all(slow)).map((r) => r.status), [200, 200]);
    // Both places are free again: two calls at once are both served (with one place lost, the
    // second would wait its one second for it, then be refused while the first still runs).
    const both = await Promise.all([echo(s, key, { text: 'd', delayMs: 1500 }), echo(s, key, { text: 'e', delayMs: 1500 })]);
    assert.deepEqual(both.map((r) => r.status), [200, 200]);
    assert.equal(await credits(s, key), 60);
  });

  it('large bodies refused for their input keep their places for the hold, then free them; another key is unaffected', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const { key: other } = await s.createKey({ credits: 100 });
    // 70 KB bodies the schema refuses (delayMs may not be negative): work the instance did for nothing.
    const invalid = { text: 'x'.repeat(70 * 1024), delayMs: -1 };
    for (let i = 0; i < 2; i++) assert.equal((await echo(s, key, invalid)).status, 400);
    const held = await echo(s, key, { text: 'valid' });
    assert.equal(held.status, 429, held.text);
    assert.equal(held.json.code, 'BUSY');
    assert.equal(held.headers['retry-after'], '2');
    assert.equal((await echo(s, other, { text: 'other key' })).status, 200);
    // The held call was refused a second after the places were taken: another second and they
    // are free, and the call below waits up to a second for one besides.
    await sleep(1000);
    const after = await echo(s, key, { text: 'valid' });
    assert.equal(after.status, 200, after.text);
    assert.equal(await credits(s, key), 90);
  });

  it('small refused bodies and answered calls free their places at once', async () => {
    const { key } = await s.createKey({ credits: 100 });
    for (let i = 0; i < 5; i++) assert.equal((await echo(s, key, { text: 'x', delayMs: -1 })).status, 400);
    for (let i = 0; i < 5; i++) assert.equal((await echo(s, key, { text: `ok ${i}` })).status, 200);
    assert.equal(await credits(s, key), 50);
  });
});

describe('requests in progress per key, default settings', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ serviceConfig: echoOnlyConfig() });
  });
  after(() => s.close());

  it('a client sending 16 valid calls at once gets them all; a 17th meanwhile is a free 429 BUSY', async () => {
    const { id, key } = await s.createKey({ credits: 1000, rateLimitPerMinute: 10_000 });
    const calls = Array.from({ length: 16 }, (_, i) => echo(s, key, { text: `n${i}`, delayMs: 2000 }));
    await running(s, id, 16);
    const extra = await echo(s, key, { text: 'one too many' });
    assert.equal(extra.status, 429, extra.text);
    assert.deepEqual([extra.json.code, extra.json.error], ['BUSY', busyText(16, '5')]);
    assert.deepEqual((await Promise.all(calls)).map((r) => r.status), Array(16).fill(200));
    assert.equal(await credits(s, key), 1000 - 16 * 10);
  });
});
