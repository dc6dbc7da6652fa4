/**
 * `POST /api/v2/run`'s envelope through the real server (issue 29: the envelope is a route schema
 * now): each malformed body gets the same 400 text, code and field it always got, the first
 * failing field in the order type, id, provider, input, options; no type coercion; a good body's
 * success envelope (meta, fallbacks, native) and its usage row.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { itRefuses, type RefusalCase } from './helpers/v2-refusals.js';
import { testServiceConfig } from './fixtures/test-plugins.js';

const BODY = "Invalid input: body must be an object with 'type', 'id' and 'input'.";
const TYPE = "Invalid input: 'type' must be 'capability' or 'endpoint'.";
const ID = "Invalid input: 'id' is required and must be a non-empty string.";
const ID_LONG = "Invalid input: 'id' must be at most 128 characters.";
const PROVIDER = "Invalid input: 'provider' must be a non-empty string.";
const INPUT = "Invalid input: 'input' is required and must be an object.";
const OPTIONS = "Invalid input: 'options' must be an object.";
const PROVIDER_ON_ENDPOINT = "Invalid input: 'provider' applies to capabilities only; an endpoint id already names its provider.";

const cap = { type: 'capability', id: 'test_echo', input: { text: 'hi' } };

/** Body (or raw JSON text), then the answer's text and the field it names (none for the body). */
const CASES: RefusalCase[] = [
  ['JSON null', { raw: 'null' }, BODY, undefined],
  ['an array', { body: [cap] }, BODY, undefined],
  ['a string', { raw: '"run"' }, BODY, undefined],
  ['unknown type', { body: { ...cap, type: 'thing' } }, TYPE, 'type'],
  ['missing type', { body: { id: 'test_echo', input: {} } }, TYPE, 'type'],
  ['empty id', { body: { ...cap, id: '' } }, ID, 'id'],
  ['numeric id (not coerced)', { body: { ...cap, id: 5 } }, ID, 'id'],
  ['missing id', { body: { type: 'capability', input: {} } }, ID, 'id'],
  ['id of 129 characters', { body: { ...cap, id: 'x'.repeat(129) } }, ID_LONG, 'id'],
  ['empty provider', { body: { ...cap, provider: '' } }, PROVIDER, 'provider'],
  ['numeric provider', { body: { ...cap, provider: 7 } }, PROVIDER, 'provider'],
  ['missing input', { body: { type: 'capability', id: 'test_echo' } }, INPUT, 'input'],
  ['null input', { body: { ...cap, input: null } }, INPUT, 'input'],
  ['array input', { body: { ...cap, input: [] } }, INPUT, 'input'],
  ['string options', { body: { ...cap, options: 'x' } }, OPTIONS, 'options'],
  ['array options', { body: { ...cap, options: [] } }, OPTIONS, 'options'],
  ['provider with an endpoint', { body: { type: 'endpoint', id: 'test_echo.echo', provider: 'test_echo', input: { text: 'hi' } } }, PROVIDER_ON_ENDPOINT, 'provider'],
  // The first failing field names the answer.
  ['bad type and id and input', { body: { type: 'thing', id: '', input: null } }, TYPE, 'type'],
  ['bad id and input', { body: { type: 'capability', id: 5, input: 3 } }, ID, 'id'],
  ['bad provider on an endpoint', { body: { type: 'endpoint', id: 'test_echo.echo', provider: '', input: {} } }, PROVIDER, 'provider'],
  ['bad input with a provider on an endpoint', { body: { type: 'endpoint', id: 'test_echo.echo', provider: 'p', input: 5 } }, INPUT, 'input'],
  ['bad input and options', { body: { ...cap, input: 'x', options: 'x' } }, INPUT, 'input'],
];

describe('POST /api/v2/run envelope', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startServer({ serviceConfig: testServiceConfig() });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(() => s?.close());

  itRefuses(() => ({ s, key }), '/api/v2/run', CASES);

  it('an id of 128 characters passes the envelope (then is unknown); extra fields are allowed', async () => {
    const r = await s.call('POST', '/api/v2/run', { key, body: { ...cap, id: 'x'.repeat(128), requestSource: 'test', extra: 1 } });
    assert.equal(r.status, 404);
    assert.equal(r.json.error, `Unknown capability: ${'x'.repeat(128)}`);
  });

  it('a refused envelope is free and its usage row names the route', async () => {
    const { key: own } = await s.createKey({ credits: 50 });
    const r = await s.call('POST', '/api/v2/run', { key: own, body: { ...cap, type: 'thing' } });
    assert.equal(r.status, 400);
    const usage = await s.call('GET', '/api/v2/usage', { key: own });
    const row = usage.json.data.items.find((i: any) => i.status === 400);
    assert.equal(row.objectType, 'operation');
    assert.equal(row.objectId, '/api/v2/run');
    assert.equal(row.credits, 0);
    assert.equal((await s.call('GET', '/api/v2/balance', { key: own })).json.data.credits, 50);
  });

  it('a good body: the success envelope with meta in its order, fallbacks, native on request, and a charged usage row', async () => {
    const r = await s.call('POST', '/api/v2/run', { key, body: { ...cap, options: { include_native: true } } });
    assert.equal(r.status, 200);
    assert.equal(r.json.object, 'capability_result');
    assert.deepEqual(r.json.data, { echo: 'hi', by: 'test_echo' });
    assert.deepEqual(Object.keys(r.json.meta), ['type', 'id', 'provider', 'credits', 'fallbacks', 'native']);
    assert.deepEqual(r.json.meta.fallbacks.map((f: any) => f.provider), ['test_fail']);
    assert.deepEqual({ ...r.json.meta, fallbacks: undefined }, { type: 'capability', id: 'test_echo', provider: 'test_echo', credits: 10, fallbacks: undefined, native: { raw: 'hi', provider: 'test_echo' } });
    const plain = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'test_echo.echo', input: { text: 'yo' } } });
    assert.equal(plain.status, 200);
    assert.deepEqual(plain.json.meta, { type: 'endpoint', id: 'test_echo.echo', provider: 'test_echo', credits: 10 });
    const usage = await s.call('GET', '/api/v2/usage', { key, headers: {} });
    const row = usage.json.data.items.find((i: any) => i.requestId === plain.json.requestId);
    assert.deepEqual([row.objectType, row.objectId, row.provider, row.credits, row.status], ['endpoint', 'test_echo.echo', 'test_echo', 10, 200]);
  });
});
