/**
 * answer_a and keyword ideas through the real server (issue 14): v2 discovery finds
 * `answer_question` and `keyword_ideas` by what they do, runs charge on the tokens and ideas
 * actually reported, provider endpoints run directly (answer_a.search with its own model, bare
 * citations and the native payload), and failures cost nothing (a model answer_a refuses among them).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFake as startAnswerFake, type AnswerAFake } from '../plugins/answer_a/fake.js';
import { startFake as startSeoFake, type SeoAFake } from '../plugins/seo_a/fake.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';

describe('answers and keyword ideas through the server', () => {
  let answers: AnswerAFake;
  let seo: SeoAFake;
  let s: TestServer;
  let key: string;
  const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
  const run = (body: Record<string, unknown>) => s.call('POST', '/api/v2/run', { key, body });

  before(async () => {
    [answers, seo] = await Promise.all([startAnswerFake(), startSeoFake()]);
    s = await startServer({ serviceConfig: pluginsConfig(['answer_a', 'seo_a']), env: { ...answers.env, ...seo.env } });
    ({ key } = await s.createKey({ credits: 1000, rateLimitPerMinute: 10_000 }));
  });
  after(async () => {
    await s?.close();
    await Promise.all([answers?.close(), seo?.close()]);
  });

  it('discovery finds both by what they do; details show the per-unit prices', async () => {
    const ideas = await s.call('POST', '/api/v2/search', { key, body: { query: 'keyword ideas' } });
    assert.equal(ideas.json.data.items[0].id, 'keyword_ideas', JSON.stringify(ideas.json.data.items.map((i: any) => i.id)));
    const ask = await s.call('POST', '/api/v2/search', { key, body: { query: 'answer a question with citations' } });
    assert.ok(ask.json.data.items.slice(0, 3).some((i: any) => i.id === 'answer_question'));
    const d = await s.call('POST', '/api/v2/details', { key, body: { id: 'answer_question' } });
    assert.deepEqual(d.json.data.cost, { kind: 'per_unit', unit: 'tokens', credits: 10, per: 1000, note: '10 credits per started 1,000 tokens the engine reports (question and answer)' });
    assert.deepEqual(d.json.data.providers, [{ id: 'answer_a', endpoint: 'answer_a.search', configured: true, allowed: true }]);
    const k = await s.call('POST', '/api/v2/details', { key, body: { id: 'seo_a.labs_engine_keyword_ideas' } });
    assert.deepEqual([k.json.data.cost.kind, k.json.data.cost.per, k.json.data.cost.credits], ['per_unit', 100, 20]);
  });

  it('answer_question: answer with citations, charged on the reported tokens', async () => {
    const before = await balance();
    answers.usage = { prompt: 700, completion: 450 };
    try {
      const r = await run({ type: 'capability', id: 'answer_question', input: { question: 'Why is the sky blue?', maxTokens: 500 } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.json.data).sort(), ['answer', 'citations', 'model', 'usage']);
      assert.equal(r.json.data.citations.length, 2);
      assert.deepEqual(r.json.data.usage, { promptTokens: 700, completionTokens: 450, totalTokens: 1150 });
      assert.deepEqual([r.json.meta.provider, r.json.meta.credits], ['answer_a', 20]);
      assert.equal(await balance(), before - 20);
    } finally {
      answers.usage = undefined;
    }
  });

  it('answer_a.search directly: the caller\'s model, bare citations titled by their host, the native completion on request', async () => {
    answers.reshape(({ search_results, ...rest }) => rest);
    try {
      const r = await run({ type: 'endpoint', id: 'answer_a.search', input: { query: 'q', model: 'sonar-pro' }, options: { include_native: true } });
      assert.equal(r.status, 200, r.text);
      assert.equal(answers.last().body.model, 'sonar-pro');
      assert.deepEqual(r.json.data.citations, [
        { url: 'https://source-one.example/article', title: 'source-one.example' },
        { url: 'https://source-two.example/page', title: 'source-two.example' },
      ]);
      assert.deepEqual([r.json.data.model, r.json.meta.native.id], ['sonar-pro', 'cmpl-fake']);
    } finally {
      answers.reset();
    }
  });

  it('keyword ideas: capability and provider endpoint, charged per started 100 ideas returned', async () => {
    const before = await balance();
    const r = await run({ type: 'capability', id: 'keyword_ideas', input: { keywords: ['coffee'], location: 'United Kingdom', limit: 120 } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.data.items.length, 120);
    assert.equal(r.json.data.locationCode, 2826);
    assert.equal(r.json.meta.credits, 40);
    const ep = await run({ type: 'endpoint', id: 'seo_a.labs_engine_keyword_ideas', input: { keywords: ['coffee'], location_code: 2840, limit: 10, offset: 245 } });
    assert.equal(ep.status, 200, ep.text);
    assert.equal(ep.json.data.items.length, 5);
    assert.equal(ep.json.meta.credits, 20);
    assert.equal(await balance(), before - 60);
  });

  it('failures cost nothing: 400s (ours and the provider\'s), the provider\'s rate limit', async () => {
    const before = await balance();
    const blank = await run({ type: 'capability', id: 'answer_question', input: { question: ' ' } });
    assert.deepEqual([blank.status, blank.json.code, blank.json.error], [400, 'INVALID_INPUT', "'question' parameter is required and must be a non-empty string."]);
    const refused = await run({ type: 'endpoint', id: 'answer_a.search', input: { query: 'q', model: 'gpt-x' } });
    assert.deepEqual([refused.status, refused.json.error], [400, "answer_a rejected the request: Invalid model 'gpt-x'. Permitted models can be found in the documentation."]);
    answers.rateLimit();
    try {
      const limited = await run({ type: 'capability', id: 'answer_question', input: { question: 'q' } });
      assert.deepEqual([limited.status, limited.json.code], [503, 'UPSTREAM_RATE_LIMITED']);
    } finally {
      answers.reset();
    }
    const noSeeds = await run({ type: 'capability', id: 'keyword_ideas', input: { keywords: [] } });
    assert.deepEqual([noSeeds.status, noSeeds.json.error], [400, "'keywords' must be a list of 1 to 200 non-empty keywords."]);
    assert.equal(await balance(), before);
  });
});
