/**
 * Deep JSON is refused from the body's bytes, before it is parsed (issue 24, finding 7 and its
 * bench: parsing 10,000 levels only to refuse them cost the serving thread three times a plain
 * call). Through the real server, on both parse paths (small bodies on the serving thread, large
 * ones in a worker): a deep body that is also cut short gets the depth 400, which shows nothing
 * parsed it first; brackets and escaped quotes inside strings do not count; refusals are free.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startFake, type SearchAFake } from '../plugins/search_a/fake.js';

const TOO_DEEP = 'Invalid input: JSON nested deeper than 64 levels.';
/** Past JSON_OFF_THREAD_BYTES below: the body goes to a worker thread. */
const PAD = 'p'.repeat(70_000);

let s: TestServer;
let fake: SearchAFake;
let key: string;

before(async () => {
  fake = await startFake();
  s = await startServer({ serviceConfig: pluginsConfig(['search_a']), env: { ...fake.env, JSON_OFF_THREAD_BYTES: '65536' } });
  ({ key } = await s.createKey({ credits: 1_000 }));
});
after(async () => {
  await s?.close();
  await fake?.close();
});

describe('deep JSON refused before parsing', () => {
  for (const [path, pad] of [['serving thread', ''], ['worker thread', PAD]] as const) {
    it(`a body 10,000 levels deep and never closed gets the depth 400, not the invalid-JSON one (${path})`, async () => {
      for (const [route, body] of [
        ['/api/v1/search-news', `{"pad":"${pad}","query":${'['.repeat(10_000)}`],
        ['/api/v1/search-news', `{"pad":"${pad}","query":${'{"a":'.repeat(10_000)}`],
        ['/api/v2/run', `{"type":"capability","id":"search_news","pad":"${pad}","input":{"query":${'[{"x":'.repeat(5_000)}`],
      ]) {
        const res = await s.call('POST', route!, { key, rawBody: body });
        assert.equal(res.status, 400, `${route}: ${res.text.slice(0, 200)}`);
        assert.equal(res.json.error, TOO_DEEP, route);
      }
    });

    it(`brackets, escaped quotes and backslashes inside strings do not count (${path})`, async () => {
      // 60 levels of real nesting around strings made of 10,000 brackets and escaped quotes.
      const tricky = JSON.stringify('[{'.repeat(5_000) + '\\"[' + '\\');
      const nested = `${'['.repeat(60)}${tricky}${']'.repeat(60)}`;
      const ok = await s.call('POST', '/api/v1/search-news', { key, rawBody: `{"pad":"${pad}","query":${nested},"note":${tricky}}` });
      assert.equal(ok.status, 400, ok.text.slice(0, 200));
      // Refused for the field's type, not for nesting: the body was parsed and checked.
      assert.notEqual(ok.json.error, TOO_DEEP);
      assert.match(ok.json.error, /query/);
      // The same strings one level past the limit: refused for nesting.
      const deep = await s.call('POST', '/api/v1/search-news', { key, rawBody: `{"pad":"${pad}","query":${'['.repeat(64)}${tricky}${']'.repeat(64)}}` });
      assert.equal(deep.status, 400);
      assert.equal(deep.json.error, TOO_DEEP);
    });
  }

  it('every refusal is free', async () => {
    const b = await s.call('GET', '/api/v2/balance', { key });
    assert.equal(b.json.data.credits, 1_000);
  });
});
