/** answer_a: the real client against the fake of its contract (contracts §8a), through the executor. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outcome, providerFaultSuite, withFake } from '../../core/testing/index.js';
import plugin from './index.js';
import { startFake } from './fake.js';

const t = withFake(plugin, startFake);
const ask = (input: object) => t.h.capability('answer_question', { question: 'q', ...input });
const SOURCES = [{ url: 'https://source-one.example/article', title: 'First source' }, { url: 'https://source-two.example/page', title: 'Second source' }];

providerFaultSuite({ plugin, fake: startFake, capability: 'answer_question', input: { question: 'q' }, also: { 'no usage': [(f) => (f.noUsage = true), '502 Received invalid data structure from answer_a service.'] } });

test('answer_question: question sent with Bearer auth; answer, citations, model and usage back', async () => {
  const r = await ask({ question: 'Who wrote Dune?', maxTokens: 200, recency: 'year', domains: ['wikipedia.org'] });
  const { path, headers, body } = t.fake.last();
  assert.deepEqual([path, headers.authorization, body.messages.at(-1)], ['/chat/completions', `Bearer ${t.fake.apiKey}`, { role: 'user', content: 'Who wrote Dune?' }]);
  assert.deepEqual([body.model, body.max_tokens, body.search_recency_filter, body.search_domain_filter], ['sonar', 200, 'year', ['wikipedia.org']]);
  assert.deepEqual(r.data, { answer: 'Answer to "Who wrote Dune?" [1][2].', citations: SOURCES, model: 'sonar', usage: { promptTokens: 13, completionTokens: 40, totalTokens: 53 } });
  // 53 tokens: one started block of 1,000 → 10 credits; reserved for 200 + the 4,000-token allowance.
  assert.deepEqual([r.reserved, r.credits, r.provider], [50, 10, 'answer_a']);
});

test('charged per started 1,000 reported tokens, never above the reservation', async () => {
  for (const [prompt, completion, credits] of [[600, 400, 10], [600, 401, 20], [2500, 1024, 40], [90_000, 1024, 60]] as const) {
    t.fake.usage = { prompt, completion };
    const r = await ask({});
    assert.deepEqual([r.credits, r.reserved], [credits, 60], `${prompt}+${completion}`);
  }
});

test('bare citations get their host as title; the endpoint takes a model and keeps the native payload', async () => {
  t.fake.bareCitations = true;
  const r = await t.h.endpoint('search', { query: 'q', model: 'sonar-pro' }, { includeNative: true });
  assert.deepEqual(r.data.citations, [{ url: SOURCES[0]!.url, title: 'source-one.example' }, { url: SOURCES[1]!.url, title: 'source-two.example' }]);
  assert.deepEqual([r.data.model, (r.native as any).id], ['sonar-pro', 'cmpl-fake']);
});

// A blank question's 400 is proven through the server (test/answer.test.ts).
test('a model the provider refuses is the caller\'s 400, in its words', async () => {
  assert.equal(await outcome(t.h.endpoint('search', { query: 'q', model: 'gpt-x' })), "400 answer_a rejected the request: Invalid model 'gpt-x'. Permitted models can be found in the documentation.");
});
