/**
 * The bodies of `POST /api/v2/search` and `POST /api/v2/details` through the real server (issue
 * 29: route schemas now): each malformed body gets the 400 text, code and field it always got,
 * the first failing field first; an empty body, `prompt` for `query` and unknown extra fields
 * still work.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { itRefuses, type RefusalCase } from './helpers/v2-refusals.js';
import { testServiceConfig } from './fixtures/test-plugins.js';

const BODY = 'Invalid input: body must be an object.';
const QUERY = "Invalid input: 'query' must be a string.";
const QUERY_LONG = "Invalid input: 'query' must be at most 1000 characters.";
const TYPE = "Invalid input: 'type' must be 'capability', 'provider' or 'endpoint'.";
const LIMIT = "Invalid input: 'limit' must be an integer from 1 to 100.";
const ID = "Invalid input: 'id' is required and must be a non-empty string.";

const SEARCH: RefusalCase[] = [
  ['an array', { body: [] }, BODY, undefined],
  ['a number', { raw: '5' }, BODY, undefined],
  ['a numeric query', { body: { query: 5 } }, QUERY, 'query'],
  ['a numeric prompt', { body: { prompt: 5 } }, QUERY, 'query'],
  ['a null query and numeric prompt', { body: { query: null, prompt: [] } }, QUERY, 'query'],
  ['a long query', { body: { query: 'q'.repeat(1001) } }, QUERY_LONG, 'query'],
  ['a long prompt', { body: { prompt: 'q'.repeat(1001) } }, QUERY_LONG, 'query'],
  ['an unknown type', { body: { query: 'x', type: 'thing' } }, TYPE, 'type'],
  ['a null type', { body: { query: 'x', type: null } }, TYPE, 'type'],
  ['limit 0', { body: { query: 'x', limit: 0 } }, LIMIT, 'limit'],
  ['limit 101', { body: { query: 'x', limit: 101 } }, LIMIT, 'limit'],
  ['limit 1.5', { body: { query: 'x', limit: 1.5 } }, LIMIT, 'limit'],
  ['a string limit (not coerced)', { body: { query: 'x', limit: '5' } }, LIMIT, 'limit'],
  ['a null limit', { body: { query: 'x', limit: null } }, LIMIT, 'limit'],
  ['bad query, type and limit', { body: { query: 1, type: 'x', limit: 0 } }, QUERY, 'query'],
  ['bad type and limit', { body: { type: 'x', limit: 0 } }, TYPE, 'type'],
];

const DETAILS: RefusalCase[] = [
  ['an array', { body: ['x'] }, BODY, undefined],
  ['a string', { raw: '"x"' }, BODY, undefined],
  ['an empty body', { raw: 'null' }, ID, 'id'],
  ['no id', { body: {} }, ID, 'id'],
  ['an empty id', { body: { id: '' } }, ID, 'id'],
  ['a numeric id', { body: { id: 5 } }, ID, 'id'],
  ['an unknown type', { body: { id: 'test_echo', type: 'thing' } }, TYPE, 'type'],
  ['bad id and type', { body: { id: 5, type: 'thing' } }, ID, 'id'],
];

describe('v2 search and details bodies', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startServer({ serviceConfig: testServiceConfig() });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(() => s?.close());

  itRefuses(() => ({ s, key }), '/api/v2/search', SEARCH, '/api/v2/search: ');
  itRefuses(() => ({ s, key }), '/api/v2/details', DETAILS, '/api/v2/details: ');

  it('search: an empty body or JSON null lists everything; prompt stands in for query; extra fields are ignored', async () => {
    const empty = await s.call('POST', '/api/v2/search', { key, raw: undefined } as never);
    assert.equal(empty.status, 200);
    const nul = await s.call('POST', '/api/v2/search', { key, rawBody: 'null' });
    assert.equal(nul.status, 200);
    assert.deepEqual(nul.json.meta, { query: '', type: null, count: nul.json.data.items.length });
    const prompt = await s.call('POST', '/api/v2/search', { key, body: { prompt: 'echo', type: 'endpoint', limit: 2, extra: true } });
    assert.equal(prompt.status, 200);
    assert.deepEqual(prompt.json.meta, { query: 'echo', type: 'endpoint', count: prompt.json.data.items.length });
    const both = await s.call('POST', '/api/v2/search', { key, body: { query: 'echo', prompt: 5 } });
    assert.equal(both.status, 200, 'a query given makes the prompt irrelevant');
    assert.equal(both.json.meta.query, 'echo');
  });

  it('details: a known id answers, includeRelated is read only when true, an unknown id is 404', async () => {
    const r = await s.call('POST', '/api/v2/details', { key, body: { id: 'test_echo', includeRelated: 'yes' } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.meta, { includeRelated: false });
    const unknown = await s.call('POST', '/api/v2/details', { key, body: { id: 'x'.repeat(300) } });
    assert.equal(unknown.status, 404);
  });
});
