/**
 * A loopback fake of the answer_a API (Perplexity-compatible, contracts §8a) for tests: Bearer
 * auth (401 with an OpenAI-style error body otherwise), `POST /chat/completions` validated like
 * the provider (known model, messages ending with a user message, `max_tokens`, recency enum),
 * answers with choices, `citations`, `search_results` and `usage`. `mode` makes it answer 429
 * with Retry-After, 500, garbage, or an answer without usage; `usage` pins the reported tokens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveLoopback } from '../../core/sdk.js';

/** How the fake answers. */
export type AnswerFakeMode = 'ok' | 'rate_limited' | 'server_error' | 'garbage' | 'no_usage' | 'bare_citations';

/** A running fake. */
export interface AnswerAFake {
  url: string;
  apiKey: string;
  env: Record<string, string>;
  requests: { path: string; body: any; auth: string }[];
  mode: AnswerFakeMode;
  /** Tokens to report instead of the computed ones. */
  usage: { prompt: number; completion: number } | undefined;
  close(): Promise<void>;
}

const MODELS = new Set(['sonar', 'sonar-pro', 'sonar-reasoning', 'sonar-reasoning-pro', 'sonar-deep-research']);
const error = (message: string, type: string, code: number) => ({ error: { message, type, code } });

/** Why the request is refused (400), or undefined. */
function invalid(b: any): string | undefined {
  if (!b || typeof b !== 'object') return 'Invalid JSON body';
  if (!MODELS.has(b.model)) return `Invalid model '${b.model}'. Permitted models can be found in the documentation.`;
  if (!Array.isArray(b.messages) || b.messages.length === 0 || b.messages.at(-1).role !== 'user' || typeof b.messages.at(-1).content !== 'string') return 'Last message must have role `user`.';
  if (b.max_tokens !== undefined && (!Number.isInteger(b.max_tokens) || b.max_tokens < 1)) return 'max_tokens must be a positive integer';
  if (b.search_recency_filter !== undefined && !['hour', 'day', 'week', 'month', 'year'].includes(b.search_recency_filter)) return 'Invalid search_recency_filter';
  if (b.search_domain_filter !== undefined && (!Array.isArray(b.search_domain_filter) || b.search_domain_filter.length > 20)) return 'search_domain_filter accepts at most 20 domains';
  return undefined;
}

/** Reads a request body as JSON (`undefined` when empty or not JSON). */
async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}

/** Answers `status` with a JSON body. */
function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Starts the fake on 127.0.0.1 with a random port. */
export async function startFake(opts: { apiKey?: string } = {}): Promise<AnswerAFake> {
  const apiKey = opts.apiKey ?? 'pplx-test-key';
  const fake: AnswerAFake = { url: '', apiKey, env: {}, requests: [], mode: 'ok', usage: undefined, close: async () => undefined };
  const server = await serveLoopback(async (req, res) => {
    const json = await readJson(req);
    const path = new URL(req.url!, 'http://fake').pathname;
    fake.requests.push({ path, body: json, auth: req.headers.authorization ?? '' });
    if (req.headers.authorization !== `Bearer ${apiKey}`) return sendJson(res, 401, error('Invalid API key provided.', 'invalid_api_key', 401));
    if (req.method !== 'POST' || path !== '/chat/completions') return sendJson(res, 404, error('Not found', 'not_found', 404));
    if (fake.mode === 'rate_limited') return sendJson(res, 429, error('Rate limit exceeded', 'rate_limit_exceeded', 429), { 'retry-after': '7' });
    if (fake.mode === 'server_error') return sendJson(res, 500, error('Internal server error', 'internal_error', 500));
    if (fake.mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html>oops</html>');
    }
    const why = invalid(json);
    if (why) return sendJson(res, 400, error(why, 'invalid_request_error', 400));
    const question: string = json.messages.at(-1).content;
    const answer = `Answer to "${question}" [1][2].`;
    const prompt = fake.usage?.prompt ?? 10 + question.split(/\s+/).length;
    const completion = fake.usage?.completion ?? Math.min(json.max_tokens ?? 1024, 40);
    const results = [
      { title: 'First source', url: 'https://source-one.example/article', date: '2024-01-01', snippet: 'First.' },
      { title: 'Second source', url: 'https://source-two.example/page', date: null, snippet: 'Second.' },
    ];
    sendJson(res, 200, {
      id: 'cmpl-fake', model: json.model, created: 1_700_000_000, object: 'chat.completion',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: answer } }],
      citations: results.map((r) => r.url),
      ...(fake.mode === 'bare_citations' ? {} : { search_results: results }),
      ...(fake.mode === 'no_usage' ? {} : { usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, search_context_size: 'low' } }),
    });
  });
  fake.url = server.url;
  fake.env = { ANSWER_A_BASE_URL: server.url, ANSWER_A_API_KEY: apiKey };
  fake.close = () => server.close();
  return fake;
}
