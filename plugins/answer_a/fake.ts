/**
 * A loopback fake of the answer_a API (Perplexity-compatible, contracts §8a) on the fake kit: Bearer
 * auth, OpenAI-style error bodies, `POST /chat/completions` checked like the provider and answered
 * from `recorded/completion.json`. State: `usage` pins the reported tokens (tests `reshape` the rest).
 */
import { Type } from '../../core/sdk.js';
import { checked, fakeUpstream, literals, recordings, type FakeUpstream } from '../../core/testing/index.js';

/** A running fake. */
export type AnswerAFake = FakeUpstream<{ usage?: { prompt: number; completion: number } }>;

const recorded = recordings(import.meta.url);
/** The body the provider accepts (its 400 texts where it has its own). */
const Body = Type.Object({
  model: literals(['sonar', 'sonar-pro', 'sonar-reasoning', 'sonar-reasoning-pro', 'sonar-deep-research'], "Invalid model '{{value}}'. Permitted models can be found in the documentation."),
  messages: Type.Array(Type.Object({ role: Type.String(), content: Type.String() }), { minItems: 1 }),
  max_tokens: Type.Optional(Type.Integer({ minimum: 1, error: 'max_tokens must be a positive integer' })),
  search_recency_filter: Type.Optional(literals(['hour', 'day', 'week', 'month', 'year'], 'Invalid search_recency_filter')),
  search_domain_filter: Type.Optional(Type.Array(Type.String(), { maxItems: 20, error: 'search_domain_filter accepts at most 20 domains' })),
});

/** Starts the fake on 127.0.0.1 with a random port; it takes the kit's test key. */
export const startFake = (): Promise<AnswerAFake> => fakeUpstream({
  error: (code, message) => ({ error: { message, type: code === 401 ? 'invalid_api_key' : code === 400 ? 'invalid_request_error' : 'error', code } }),
  state: { usage: undefined as { prompt: number; completion: number } | undefined },
  env: ({ url, apiKey }) => ({ ANSWER_A_BASE_URL: url, ANSWER_A_API_KEY: apiKey }),
  routes: {
    'POST /chat/completions': checked({ body: Body }, ({ body }, fake) => {
      const { role, content: question } = body.messages.at(-1);
      if (role !== 'user') return fake.error(400, 'Last message must have role `user`.');
      const prompt = fake.usage?.prompt ?? 10 + question.split(/\s+/).length;
      const completion = fake.usage?.completion ?? Math.min(body.max_tokens ?? 1024, 40);
      return { json: recorded('completion', { model: body.model, question, prompt, completion, total: prompt + completion }) };
    }),
  },
});
