/**
 * A loopback fake of the spider_a API (Spider, contracts §6) for tests: bearer auth, JSON-array
 * answers with one element per page (target failures inside the element), `{ error, status }`
 * API errors and both rate-limit header families on 429.
 */
import { serveLoopback } from '../../core/sdk.js';

/** A running fake. */
export interface SpiderAFake {
  url: string;
  apiKey: string;
  /** What the server needs to use the fake (base URL and key variables). */
  env: Record<string, string>;
  requests: { path: string; body: any }[];
  /** When set, every call answers with this HTTP status and an API error body. */
  failWith: number | undefined;
  close(): Promise<void>;
}

function content(url: string, format: string): string {
  const title = `Spider page ${new URL(url).pathname}`;
  if (format === 'raw') return `<!doctype html><html><body><h1>${title}</h1></body></html>`;
  if (format === 'text') return `${title}\nText of ${url}`;
  return `# ${title}\n\nMarkdown of ${url}`;
}

/** Starts the fake on 127.0.0.1 with a random port. */
export async function startSpiderAFake(opts: { apiKey?: string } = {}): Promise<SpiderAFake> {
  const apiKey = opts.apiKey ?? 'sk-spider-test';
  const fake: SpiderAFake = { url: '', apiKey, env: {}, requests: [], failWith: undefined, close: async () => undefined };
  const server = await serveLoopback((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(json));
      };
      const path = new URL(req.url!, 'http://fake').pathname.replace(/^\/v1/, '');
      let body: any;
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        return send(400, { error: 'Invalid JSON', status: 400 });
      }
      fake.requests.push({ path, body });
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { error: 'Invalid API key', status: 401 });
      if (fake.failWith === 429) {
        const reset = String(Math.ceil(Date.now() / 1000) + 1);
        return send(429, { error: 'Rate limit exceeded', status: 429 }, {
          'retry-after': '1', 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset,
          'ratelimit-limit': '20', 'ratelimit-remaining': '0', 'ratelimit-reset': reset,
        });
      }
      if (fake.failWith) return send(fake.failWith, { error: 'Internal error', status: fake.failWith });
      if (req.method !== 'POST' || !['/scrape', '/crawl', '/links'].includes(path)) return send(404, { error: 'Not found', status: 404 });
      if (typeof body.url !== 'string' || !/^https?:\/\//.test(body.url)) return send(400, { error: 'url is required', status: 400 });
      const format = body.return_format ?? 'raw';
      const root = body.url.replace(/\/$/, '');
      const n = path === '/scrape' ? 1 : Math.min(body.limit || 6, 6);
      const pages = Array.from({ length: n }, (_, i) => {
        const url = i === 0 ? body.url : `${root}/s${i}`;
        // The last page of a crawl is a target-side 404 with no content, reported inside the array.
        const broken = path === '/crawl' && n > 2 && i === n - 1;
        return {
          url,
          status: broken ? 404 : 200,
          content: broken || path === '/links' ? null : content(url, format),
          error: broken ? 'Not Found' : null,
          costs: { total_cost: 0.0002, total_cost_formatted: '$0.0002' },
          duration_elasped_ms: 12,
          ...(body.metadata ? { metadata: { title: `Spider page ${new URL(url).pathname}` } } : {}),
          ...(body.return_page_links ? { links: [`${root}/x`, `${root}/y`] } : {}),
        };
      });
      send(200, pages, { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '19', 'ratelimit-limit': '20', 'ratelimit-remaining': '19' });
    });
  });
  fake.url = server.url;
  fake.env = { SPIDER_A_BASE_URL: fake.url, SPIDER_A_API_KEY: apiKey };
  fake.close = () => server.close();
  return fake;
}

/** The name every provider fake exports (the contract test looks for it). */
export const startFake = startSpiderAFake;
