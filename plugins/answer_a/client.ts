/**
 * Client of the answer_a API (Perplexity-compatible, contracts §8a): `POST {base}/chat/completions`
 * with a Bearer key; the answer is the first choice's message, the sources are `search_results`
 * (title and URL) or, from older answers, the bare `citations` URLs; `usage` is what is charged.
 */
import { invalidStructure, providerRequest, type RunContext } from '../../core/sdk.js';

/** The parts of a chat completion the service reads (contracts §8a "Answer (Sonar)"). */
interface Completion {
  model?: unknown;
  choices?: { message?: { content?: unknown } }[];
  citations?: unknown;
  search_results?: { title?: unknown; url?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown };
}

/** What one question asks of the engine. */
export interface AnswerRequest {
  query: string;
  model: string;
  maxTokens: number;
  recency?: string;
  domains?: string[];
}

/** The answer in the service's shape. */
export interface Answer {
  answer: string;
  citations: { url: string; title: string }[];
  model: string;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number };
}

const SYSTEM = 'Answer the question accurately and concisely from current web sources, citing them.';
const count = (v: unknown) => (Number.isInteger(v) && (v as number) >= 0 ? (v as number) : undefined);

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

/** Asks the engine; returns the answer and the completion as received (for `meta.native`). */
export async function ask(ctx: RunContext<any, any>, req: AnswerRequest): Promise<{ answer: Answer; raw: unknown }> {
  const { data } = await providerRequest<Completion>(ctx, {
    path: '/chat/completions',
    method: 'POST',
    json: {
      model: req.model,
      messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: req.query }],
      max_tokens: req.maxTokens,
      search_recency_filter: req.recency,
      search_domain_filter: req.domains,
    },
  });
  const content = data?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw invalidStructure(ctx, 'no choices[0].message.content');
  const usage = data.usage ?? {};
  const [promptTokens, completionTokens] = [count(usage.prompt_tokens), count(usage.completion_tokens)];
  // The charge is the usage the provider reports (issue 14): an answer without it cannot be priced.
  if (promptTokens === undefined || completionTokens === undefined) throw invalidStructure(ctx, 'no token usage');
  const totalTokens = count(usage.total_tokens) ?? promptTokens + completionTokens;
  const results = Array.isArray(data.search_results) ? data.search_results.filter((r) => r && typeof r.url === 'string') : [];
  const citations = results.length
    ? results.map((r) => ({ url: r.url as string, title: typeof r.title === 'string' && r.title ? r.title : hostOf(r.url as string) }))
    : (Array.isArray(data.citations) ? data.citations.filter((c): c is string => typeof c === 'string') : []).map((url) => ({ url, title: hostOf(url) }));
  return { answer: { answer: content, citations, model: typeof data.model === 'string' ? data.model : req.model, usage: { promptTokens, completionTokens, totalTokens } }, raw: data };
}
