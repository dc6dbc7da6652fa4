/** answer_a through the executor against its fake (contracts §8a); test/answer.test.ts proves through the server a blank question's 400, the endpoint's own model, bare citations, the native payload and a refused model. */
import { test } from 'node:test';
import { exactly, like, providerFaultSuite, withFake } from '../../core/testing/index.js';
import plugin from './index.js';
import { startFake } from './fake.js';

const t = withFake(plugin, startFake);
const ask = (input: object) => t.h.capability('answer_question', { question: 'q', ...input });
const SOURCES = [{ url: 'https://source-one.example/article', title: 'First source' }, { url: 'https://source-two.example/page', title: 'Second source' }];

providerFaultSuite({ plugin, fake: startFake, capability: 'answer_question', also: { 'no usage': [(f) => f.reshape(({ usage, ...rest }) => rest), '502 Received invalid data structure from answer_a service.'] } });

test('answer_question: question sent with Bearer auth; answer, citations, model and usage back', async () => {
  const r = await ask({ question: 'Who wrote Dune?', maxTokens: 200, recency: 'year', domains: ['wikipedia.org'] });
  like(t.fake.last(), { path: '/chat/completions', headers: { authorization: `Bearer ${t.fake.apiKey}` }, body: { model: 'sonar', max_tokens: 200, search_recency_filter: 'year', search_domain_filter: ['wikipedia.org'], messages: [{ role: 'system' }, { role: 'user', content: 'Who wrote Dune?' }] } });
  like(r, { data: exactly({ answer: 'Answer to "Who wrote Dune?" [1][2].', citations: SOURCES, model: 'sonar', usage: { promptTokens: 13, completionTokens: 40, totalTokens: 53 } }), provider: 'answer_a' });
});

test('charged per started 1,000 reported tokens; reserved for maxTokens (default 1,024) + a 4,000-token allowance, never more', async () => {
  for (const [input, prompt, completion, credits, reserved] of [[{ maxTokens: 200 }, 13, 40, 10, 50], [{}, 600, 400, 10, 60], [{}, 600, 401, 20, 60], [{}, 2500, 1024, 40, 60], [{}, 90_000, 1024, 60, 60]] as const) {
    t.fake.usage = { prompt, completion };
    like(await ask(input), { credits, reserved }, `${JSON.stringify(input)} ${prompt}+${completion}`);
  }
});
