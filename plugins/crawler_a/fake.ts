/**
 * A loopback fake of the crawler_a API (Firecrawl v2, contracts §5) on the fake kit: bearer auth,
 * `{ success:false, error }` failures, scrape/search/map, and a crawl job that reports `scraping`
 * before `completed` and pages its data through `next`. Pages are generated from the requested URL
 * so tests can tell what was asked; screenshots are served, without a key, from its storage.
 * State: `jobMode` for jobs started from now on (`failed`: `scraping` once, then `failed`; `stuck`:
 * `scraping` until cancelled; `lost`: the status poll answers 404), `cancelled` job ids,
 * `screenshotHits` downloads from the storage.
 */
import { fakeUpstream, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';

/** A 1×1 PNG, the image the fake's storage serves for every screenshot. */
export const SCREENSHOT_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

interface State {
  jobMode: 'failed' | 'stuck' | 'lost' | undefined;
  cancelled: string[];
  screenshotHits: number;
}

/** A running fake. */
export type CrawlerAFake = FakeUpstream<State>;
type Route = FakeRoute<State>;
type Job = { polls: number; docs: unknown[]; mode: State['jobMode']; cancelled: boolean };

const CHUNK = 2;

function doc(base: string, url: string, formats: unknown[]) {
  const title = `Page ${new URL(url).pathname}`;
  const out: Record<string, unknown> = { metadata: { title, sourceURL: url, url, statusCode: 200, contentType: 'text/html' } };
  for (const f of formats.length ? formats : ['markdown']) {
    const kind = typeof f === 'string' ? f : (f as { type?: string }).type;
    if (kind === 'markdown') out.markdown = `# ${title}\n\nContent of [${url}](${url}).`;
    if (kind === 'html') out.html = `<h1>${title}</h1>`;
    if (kind === 'rawHtml') out.rawHtml = `<!doctype html><html><body><h1>${title}</h1></body></html>`;
    if (kind === 'links') out.links = [`${url.replace(/\/$/, '')}/a`];
    if (kind === 'screenshot') out.screenshot = `${base}/screenshots/${encodeURIComponent(url)}.png`;
  }
  return out;
}

/** Routes that take a `url` answer Firecrawl's validation error without one. */
const withUrl = (route: Route): Route => (req, fake) =>
  typeof req.body?.url === 'string' && /^https?:\/\//.test(req.body.url) ? route(req, fake) : { status: 400, json: { success: false, error: 'Invalid URL', details: [{ path: ['url'], message: 'Invalid url' }] } };

/** Starts the fake on 127.0.0.1 with a random port. */
export function startCrawlerAFake(opts: { apiKey?: string } = {}): Promise<CrawlerAFake> {
  const jobs = new Map<string, Job>();
  let seq = 0;
  const poll: Route = ({ params, query }, fake) => {
    const job = jobs.get(params.id!);
    if (!job || job.mode === 'lost') return fake.error(404, 'Not Found');
    job.polls++;
    const skip = Number(query.skip ?? 0);
    const base = { total: job.docs.length, completed: 0, creditsUsed: 0, expiresAt: new Date(Date.now() + 86_400_000).toISOString(), next: null, data: [] };
    if (job.cancelled) return { json: { ...base, status: 'cancelled' } };
    if (job.mode === 'stuck' || (job.mode === 'failed' && job.polls === 1)) return { json: { ...base, status: 'scraping' } };
    if (job.mode === 'failed') return { json: { ...base, status: 'failed' } };
    const done = job.polls > 1 || skip > 0;
    const next = skip + CHUNK < job.docs.length ? `${fake.url}/v2/crawl/${params.id}?skip=${skip + CHUNK}` : null;
    return { json: { ...base, status: done ? 'completed' : 'scraping', completed: done ? job.docs.length : 1, creditsUsed: done ? job.docs.length : 1, next, data: job.docs.slice(skip, skip + CHUNK) } };
  };
  return fakeUpstream({
    apiKey: opts.apiKey ?? 'fc-test-key',
    error: (_status, message) => ({ success: false, error: message, code: 'UNKNOWN_ERROR' }),
    state: { jobMode: undefined, cancelled: [], screenshotHits: 0 } as State,
    env: ({ url, apiKey }) => ({ CRAWLER_A_BASE_URL: url, CRAWLER_A_API_KEY: apiKey, CRAWLER_A_POLL_INTERVAL_MS: '20' }),
    open: ['GET /screenshots/:file'],
    routes: {
      'GET /screenshots/:file': (_req, fake) => {
        fake.screenshotHits += 1;
        return { bytes: SCREENSHOT_PNG, headers: { 'content-type': 'image/png' } };
      },
      'POST /v2/scrape': withUrl(({ body }, fake) => ({ json: { success: true, data: doc(fake.url, body.url, body.formats ?? ['markdown']) } })),
      'POST /v2/search': ({ body }, fake) => {
        if (typeof body?.query !== 'string') return fake.error(400, 'query is required');
        const n = Math.min(body.limit ?? 10, 3);
        const web = Array.from({ length: n }, (_, i) => ({ title: `${body.query} result ${i + 1}`, description: `About ${body.query}`, url: `https://example.org/${i + 1}`, position: i + 1 }));
        return { json: { success: true, data: { web }, warning: null, id: `search-${++seq}`, creditsUsed: n } };
      },
      'POST /v2/map': withUrl(({ body }) => {
        const root = body.url.replace(/\/$/, '');
        return { json: { success: true, links: ['', '/about', '/blog'].slice(0, body.limit ?? 5000).map((p) => ({ url: root + p, title: p || 'home' })) } };
      }),
      'POST /v2/crawl': withUrl(({ body }, fake) => {
        const id = `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`;
        const root = body.url.replace(/\/$/, '');
        const docs = Array.from({ length: Math.min(body.limit ?? 10000, 7) }, (_, i) => doc(fake.url, i === 0 ? body.url : `${root}/page-${i}`, body.scrapeOptions?.formats ?? ['markdown']));
        jobs.set(id, { polls: 0, docs, mode: fake.jobMode, cancelled: false });
        return { json: { success: true, id, url: `${fake.url}/v2/crawl/${id}` } };
      }),
      'GET /v2/crawl/:id': poll,
      'DELETE /v2/crawl/:id': ({ params }, fake) => {
        const job = jobs.get(params.id!);
        if (!job) return fake.error(404, 'Not Found');
        job.cancelled = true;
        fake.cancelled.push(params.id!);
        return { json: { status: 'cancelled' } };
      },
    },
  });
}

/** The name every provider fake exports (the contract test looks for it). */
export const startFake = startCrawlerAFake;
