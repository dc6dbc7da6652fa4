/**
 * A loopback fake of the answer_a API (Perplexity-compatible, contracts §8a) on the fake kit:
 * Bearer auth, OpenAI-style error bodies, `POST /chat/completions` validated like the provider
 * (known model, last message from the user, `max_tokens`, recency, at most 20 domains) and answered
 * with choices, `citations`, `search_results` and `usage`. State: `usage` pins the reported tokens,
 * `bareCitations` leaves out `search_results`, `noUsage` leaves out `usage`.
 */
import { fakeUpstream, type FakeUpstream } from '../../core/testing/index.js';

/** A running fake. */
export type AnswerAFake = FakeUpstream<{ usage?: { prompt: number; completion: number }; bareCitations: boolean; noUsage: boolean }>;

const MODELS = new Set(['sonar', 'sonar-pro', 'sonar-reasoning', 'sonar-reasoning-pro', 'sonar-deep-research']);
const RESULTS = [
  { title: 'First source', url: 'https://source-one.example/article', date: '2024-01-01', snippet: 'First.' },
  { title: 'Second source', url: 'https://source-two.example/page', date: null, snippet: 'Second.' },
];

/** Why the request is refused (400), or undefined. */
function invalid(b: any): string | undefined {
  if (!b || typeof b !== 'object') return 'Invalid JSON body';
  if (!MODELS.has(b.model)) return `Invalid model '${b.model}'. Permitted models can be found in the documentation.`;
  if (!Array.isArray(b.messages) || b.messages.at(-1)?.role !== 'user' || typeof b.messages.at(-1).content !== 'string') return 'Last message must have role `user`.';
  if (b.max_tokens !== undefined && (!Number.isInteger(b.max_tokens) || b.max_tokens < 1)) return 'max_tokens must be a positive integer';
  if (b.search_recency_filter !== undefined && !['hour', 'day', 'week', 'month', 'year'].includes(b.search_recency_filter)) return 'Invalid search_recency_filter';
  if (b.search_domain_filter !== undefined && (!Array.isArray(b.search_domain_filter) || b.search_domain_filter.length > 20)) return 'search_domain_filter accepts at most 20 domains';
  return undefined;
}

/** Starts the fake on 127.0.0.1 with a random port. */
export function startFake(opts: { apiKey?: string } = {}): Promise<AnswerAFake> {
  return fakeUpstream({
    apiKey: opts.apiKey ?? 'pplx-test-key',
    error: (code, message) => ({ error: { message, type: code === 401 ? 'invalid_api_key' : code === 400 ? 'invalid_request_error' : 'error', code } }),
    state: { usage: undefined as { prompt: number; completion: number } | undefined, bareCitations: false, noUsage: false },
    env: ({ url, apiKey }) => ({ ANSWER_A_BASE_URL: url, ANSWER_A_API_KEY: apiKey }),
    routes: {
      'POST /chat/completions': ({ body }, fake) => {
        const why = invalid(body);
        if (why) return fake.error(400, why);
        const question: string = body.messages.at(-1).content;
        const prompt = fake.usage?.prompt ?? 10 + question.split(/\s+/).length;
        const completion = fake.usage?.completion ?? Math.min(body.max_tokens ?? 1024, 40);
        return {
          json: {
            id: 'cmpl-fake', model: body.model, created: 1_700_000_000, object: 'chat.completion',
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: `Answer to "${question}" [1][2].` } }],
            citations: RESULTS.map((r) => r.url),
            ...(fake.bareCitations ? {} : { search_results: RESULTS }),
            ...(fake.noUsage ? {} : { usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, search_context_size: 'low' } }),
          },
        };
      },
    },
  });
}
