/**
 * The body of `POST /api/v2/jobs` through the real server (issue 29: a route schema now): each
 * malformed submission gets the 400 text, code and field it always got, in the order type, id,
 * provider, provider on an endpoint, input, options, webhook; nothing is queued or charged.
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
const PROVIDER_ON_ENDPOINT = "Invalid input: 'provider' applies to capabilities only; an endpoint id already names its provider.";
const INPUT = "Invalid input: 'input' is required and must be an object.";
const OPTIONS = "Invalid input: 'options' must be an object.";
const WEBHOOK = "Invalid input: 'webhook' must be an object with 'url'.";
const WEBHOOK_URL = "Invalid input: 'webhook.url' must be an http(s) URL.";

const job = { type: 'capability', id: 'test_echo', input: { text: 'hi' } };

const CASES: RefusalCase[] = [
  ['JSON null', { raw: 'null' }, BODY, undefined],
  ['an array', { body: [job] }, BODY, undefined],
  ['unknown type', { body: { ...job, type: 'x' } }, TYPE, 'type'],
  ['numeric id', { body: { ...job, id: 1 } }, ID, 'id'],
  ['long id', { body: { ...job, id: 'x'.repeat(129) } }, ID_LONG, 'id'],
  ['empty provider', { body: { ...job, provider: '' } }, PROVIDER, 'provider'],
  ['long provider', { body: { ...job, provider: 'p'.repeat(129) } }, PROVIDER, 'provider'],
  ['provider on an endpoint', { body: { type: 'endpoint', id: 'test_echo.echo', provider: 'p', input: {} } }, PROVIDER_ON_ENDPOINT, 'provider'],
  ['provider on an endpoint, bad input', { body: { type: 'endpoint', id: 'test_echo.echo', provider: 'p', input: 5 } }, PROVIDER_ON_ENDPOINT, 'provider'],
  ['null input', { body: { ...job, input: null } }, INPUT, 'input'],
  ['string options', { body: { ...job, options: 's' } }, OPTIONS, 'options'],
  ['string webhook', { body: { ...job, webhook: 'http://x' } }, WEBHOOK, 'webhook'],
  ['ftp webhook', { body: { ...job, webhook: { url: 'ftp://example.com/' } } }, WEBHOOK_URL, 'webhook.url'],
  ['bad options and webhook', { body: { ...job, options: 1, webhook: 1 } }, OPTIONS, 'options'],
];

describe('POST /api/v2/jobs body', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startServer({ serviceConfig: testServiceConfig() });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(() => s?.close());

  itRefuses(() => ({ s, key }), '/api/v2/jobs', CASES);

  it("a refused submission's usage row names the jobs operation", async () => {
    const usage = await s.call('GET', '/api/v2/usage', { key, headers: {} });
    const rows = usage.json.data.items.filter((i: any) => i.status === 400);
    assert.equal(rows.length, CASES.length);
    assert.deepEqual([...new Set(rows.map((r: any) => `${r.objectType} ${r.objectId} ${r.credits}`))], ['operation jobs 0']);
  });

  it('nothing was queued and nothing charged', async () => {
    const list = await s.call('GET', '/api/v2/jobs', { key });
    assert.deepEqual(list.json.data.items, []);
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 1000);
  });
});
