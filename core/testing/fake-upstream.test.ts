/** The fake kit on its own (issue 29): routes and params, key checks, open routes, failure switches, state. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fakeUpstream, type FakeUpstream } from './fake-upstream.js';

let fake: FakeUpstream<{ count: number }>;
before(async () => {
  fake = await fakeUpstream({
    apiKey: 'k1',
    auth: [{ header: 'x-key' }, { query: 'token' }],
    error: (status, message) => ({ oops: message, status }),
    state: { count: 0 },
    env: ({ url, apiKey }) => ({ P_BASE_URL: url, P_API_KEY: apiKey }),
    open: ['GET /files/:name'],
    routes: {
      'GET /items/:id': ({ params, query }, f) => ({ json: { id: params.id, page: query.page ?? null, count: ++f.count } }),
      'POST /items': ({ body }) => ({ status: 201, json: body }),
      'GET /files/:name': ({ params }) => ({ text: `file ${params.name}` }),
    },
  });
});
after(() => fake.close());

const call = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${fake.url}${path}`, { ...init, headers: { 'x-key': 'k1', ...(init.headers ?? {}) } });
  return [res.status, (res.headers.get('content-type') ?? '').startsWith('application/json') ? await res.json() : await res.text()];
};

test('routes match method and path, pass params, query and JSON body; unknown routes answer the provider 404', async () => {
  assert.deepEqual(fake.env, { P_BASE_URL: fake.url, P_API_KEY: 'k1' });
  assert.deepEqual(await call('/items/a%20b?page=2'), [200, { id: 'a b', page: '2', count: 1 }]);
  assert.deepEqual(await call('/items', { method: 'POST', body: '{"x":1}' }), [201, { x: 1 }]);
  assert.deepEqual(await call('/items', { method: 'PUT' }), [404, { oops: 'Not found', status: 404 }]);
  assert.deepEqual(fake.requests.map((r) => `${r.method} ${r.url}`), ['GET /items/a%20b?page=2', 'POST /items', 'PUT /items']);
});

test('the key: any declared place; a wrong one answers the provider body; open routes need none and are not logged', async () => {
  assert.deepEqual(await call('/items/1?token=k1', { headers: { 'x-key': '' } }), [200, { id: '1', page: null, count: 2 }]);
  assert.deepEqual(await call('/items/1', { headers: { 'x-key': 'nope' } }), [401, { oops: 'Unauthorized', status: 401 }]);
  const seen = fake.requests.length;
  assert.deepEqual(await call('/files/a.txt', { headers: { 'x-key': '' } }), [200, 'file a.txt']);
  assert.equal(fake.requests.length, seen);
});

test('failure switches until reset; reset restores the declared state', async () => {
  fake.failWith(503);
  assert.deepEqual(await call('/items/1'), [503, { oops: 'Internal server error', status: 503 }]);
  fake.rateLimit();
  const limited = await fetch(`${fake.url}/items/1`, { headers: { 'x-key': 'k1' } });
  assert.deepEqual([limited.status, limited.headers.get('retry-after')], [429, '1']);
  fake.outOfCredits();
  assert.equal((await call('/items/1'))[0], 402);
  fake.rejectKey();
  assert.equal((await call('/items/1'))[0], 401);
  fake.garbage();
  const garbage = await call('/items/1');
  assert.equal(garbage[0], 200);
  assert.throws(() => JSON.parse(garbage[1] as string));
  assert.equal((await call('/files/x'))[1], 'file x', 'open routes never fail');
  fake.reset();
  assert.deepEqual(await call('/items/9'), [200, { id: '9', page: null, count: 1 }]);
});

test('hang never answers; drip sends the answer one byte at a time', async () => {
  fake.hang();
  await assert.rejects(fetch(`${fake.url}/items/1`, { headers: { 'x-key': 'k1' }, signal: AbortSignal.timeout(300) }), /abort|timeout/i);
  fake.drip();
  const res = await fetch(`${fake.url}/items/1`, { headers: { 'x-key': 'k1' } });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const first = await reader.read();
  assert.equal(first.value!.length, 1, 'one byte at a time');
  await reader.cancel();
  fake.reset();
});
