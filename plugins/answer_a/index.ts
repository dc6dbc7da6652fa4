/**
 * answer_a (Perplexity-compatible answer engine, contracts §8a): `answer_a.search` (spec §4.10), a
 * question in, an answer with its cited sources, the model and the token usage out; it serves the
 * capability `answer_question`. Charged per started 1,000 tokens the engine reports (issue 14).
 */
import { Type, defineEndpoint, definePlugin, implement } from '../../core/sdk.js';
import { ANSWER_DEFAULT_MAX_TOKENS, ANSWER_MAX_TOKENS, answerCost, answerQuestion } from '../../core/catalogue.js';
import { ask } from './client.js';

const config = {
  baseUrl: { type: 'url', description: 'answer_a API base URL.', default: 'https://api.perplexity.ai' },
  apiKey: { type: 'secret', description: 'answer_a API key (Bearer token).', required: true },
  model: { type: 'string', description: 'Model used when the call names none (e.g. sonar, sonar-pro).', default: 'sonar' },
  timeoutMs: { type: 'integer', description: 'Time allowed for one answer, ms.', min: 1000, max: 300_000, default: 90_000 },
} as const;

const Output = answerQuestion.output!;

const search = defineEndpoint({
  operation: 'search',
  title: 'answer_a answer search',
  summary: 'Searches the web and answers a query in prose with cited sources; charged per 1,000 tokens reported.',
  tags: ['answer', 'question', 'ai', 'llm', 'citations', 'research', 'perplexity'],
  input: Type.Object({
    query: Type.String({ minLength: 1, maxLength: 8000, pattern: '\\S', description: 'The question or query.' }),
    model: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9.-]{0,63}$', description: 'Model, e.g. sonar or sonar-pro (default the ANSWER_A_MODEL setting).' })),
    maxTokens: Type.Optional(Type.Integer({ minimum: 16, maximum: ANSWER_MAX_TOKENS, description: `Longest answer, in tokens (default ${ANSWER_DEFAULT_MAX_TOKENS}).` })),
    recency: Type.Optional(Type.Union(['hour', 'day', 'week', 'month', 'year'].map((v) => Type.Literal(v)), { description: 'Only sources published within this period.' })),
    domains: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253, description: 'A domain (prefix - to exclude).' }), { maxItems: 20, description: 'Domains to search (or exclude).' })),
  }),
  output: Output,
  cost: answerCost,
  timeoutMs: 310_000,
  messages: { query: "'query' parameter is required and must be a non-empty string." },
  examples: [{ title: 'A recent-events question', input: { query: 'Which country won the most recent football World Cup?', recency: 'year', maxTokens: 200 } }],
  async run(input, ctx) {
    const { answer, raw } = await ask(ctx, { query: input.query, model: input.model ?? String(ctx.config.model ?? 'sonar'), maxTokens: input.maxTokens ?? ANSWER_DEFAULT_MAX_TOKENS, recency: input.recency, domains: input.domains });
    ctx.setNative(raw);
    ctx.usage.add('tokens', answer.usage.totalTokens);
    return answer;
  },
});

export default definePlugin({
  id: 'answer_a',
  apiVersion: 1,
  title: 'answer_a (Perplexity-compatible answer engine)',
  summary: 'Answers questions from live web search, citing its sources.',
  tags: ['answer', 'ai', 'search', 'citations', 'provider'],
  config,
  endpoints: [search],
  implements: [
    implement(answerQuestion, search, {
      mapInput: (i) => ({ query: i.question, ...(i.maxTokens !== undefined ? { maxTokens: i.maxTokens } : {}), ...(i.recency ? { recency: i.recency } : {}), ...(i.domains ? { domains: i.domains } : {}) }),
    }),
  ],
});
