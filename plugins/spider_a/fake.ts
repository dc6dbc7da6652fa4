/**
 * A loopback fake of the spider_a API (Spider, contracts §6) on the fake kit: bearer auth, JSON-array
 * answers with one element per page (target failures inside the element), `{ error, status }` API
 * errors and both rate-limit header families, on 429 and on every answer.
 */
import { fakeUpstream, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';

/** A running fake. */
export type SpiderAFake = FakeUpstream;

const limits = (remaining: number) => ({ 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': String(remaining), 'ratelimit-limit': '20', 'ratelimit-remaining': String(remaining) });

function content(url: string, format: string): string {
  const title = `Spider page ${new URL(url).pathname}`;
  if (format === 'raw') return `<!doctype html><html><body><h1>${title}</h1></body></html>`;
  return format === 'text' ? `${title}\nText of ${url}` : `# ${title}\n\nMarkdown of ${url}`;
}

/** `/scrape` answers one page, `/crawl` and `/links` up to six; a crawl's last page (of 3+) is a target 404 without content. */
const pages = (route: 'scrape' | 'crawl' | 'links'): FakeRoute<{}> => ({ body }, fake) => {
  if (typeof body?.url !== 'string' || !/^https?:\/\//.test(body.url)) return fake.error(400, 'url is required');
  const root = body.url.replace(/\/$/, '');
  const n = route === 'scrape' ? 1 : Math.min(body.limit || 6, 6);
  const json = Array.from({ length: n }, (_, i) => {
    const url = i === 0 ? body.url : `${root}/s${i}`;
    const broken = route === 'crawl' && n > 2 && i === n - 1;
    return {
      url, status: broken ? 404 : 200, content: broken || route === 'links' ? null : content(url, body.return_format ?? 'raw'), error: broken ? 'Not Found' : null,
      costs: { total_cost: 0.0002, total_cost_formatted: '$0.0002' }, duration_elasped_ms: 12,
      ...(body.metadata ? { metadata: { title: `Spider page ${new URL(url).pathname}` } } : {}),
      ...(body.return_page_links ? { links: [`${root}/x`, `${root}/y`] } : {}),
    };
  });
  return { json, headers: limits(19) };
};

/** Starts the fake on 127.0.0.1 with a random port. */
export function startSpiderAFake(opts: { apiKey?: string } = {}): Promise<SpiderAFake> {
  return fakeUpstream({
    apiKey: opts.apiKey ?? 'sk-spider-test',
    error: (status, message) => ({ error: message, status }),
    rateLimited: { status: 429, json: { error: 'Rate limit exceeded', status: 429 }, headers: { 'retry-after': '1', ...limits(0), 'x-ratelimit-reset': '1', 'ratelimit-reset': '1' } },
    env: ({ url, apiKey }) => ({ SPIDER_A_BASE_URL: url, SPIDER_A_API_KEY: apiKey }),
    routes: { 'POST /v1/scrape': pages('scrape'), 'POST /v1/crawl': pages('crawl'), 'POST /v1/links': pages('links') },
  });
}

/** The name every provider fake exports (the contract test looks for it). */
export const startFake = startSpiderAFake;
