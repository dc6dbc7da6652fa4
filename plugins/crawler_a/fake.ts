/**
 * A loopback fake of the crawler_a API (Firecrawl v2, contracts §5) for tests: bearer auth,
 * `{ success:false, error }` failures, scrape/search/map, and a crawl job that reports
 * `scraping` before `completed` and pages its data through `next`. Pages are generated from the
 * requested URL so tests can tell what was asked.
 */
import { serveLoopback } from '../../core/sdk.js';

/** A running fake. */
/** A 1×1 PNG, the image the fake's storage serves for every screenshot. */
export const SCREENSHOT_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

export interface CrawlerAFake {
  url: string;
  apiKey: string;
  /** What the server needs to use the fake (base URL and key variables). */
  env: Record<string, string>;
  /** Every request received (method and path), for assertions. */
  requests: { method: string; path: string; body: any }[];
  /** When set, every API call answers with this status and a Firecrawl error body. */
  failWith: number | undefined;
  /**
   * How crawl jobs started from now on behave: `failed` reports `scraping` once, then `failed`;
   * `stuck` keeps `scraping` until cancelled; `lost` answers the status poll with 404 (the job
   * expired upstream). Unset: `scraping` once, then `completed`.
   */
  jobMode: 'failed' | 'stuck' | 'lost' | undefined;
  /** Ids of the jobs cancelled with `DELETE /v2/crawl/{id}`. */
  cancelled: string[];
  /** Downloads of screenshot images from the fake's storage. */
  screenshotHits: number;
  close(): Promise<void>;
}

const CHUNK = 2;

/** Starts the fake on 127.0.0.1 with a random port. */
export async function startCrawlerAFake(opts: { apiKey?: string } = {}): Promise<CrawlerAFake> {
  const apiKey = opts.apiKey ?? 'fc-test-key';
  const jobs = new Map<string, { polls: number; docs: unknown[]; mode: CrawlerAFake['jobMode']; cancelled: boolean }>();
  let seq = 0;
  const fake: CrawlerAFake = { url: '', apiKey, env: {}, requests: [], failWith: undefined, jobMode: undefined, cancelled: [], screenshotHits: 0, close: async () => undefined };

  const doc = (url: string, formats: unknown[]) => {
    const title = `Page ${new URL(url).pathname}`;
    const out: Record<string, unknown> = { metadata: { title, sourceURL: url, url, statusCode: 200, contentType: 'text/html' } };
    for (const f of formats.length ? formats : ['markdown']) {
      const kind = typeof f === 'string' ? f : (f as { type?: string }).type;
      if (kind === 'markdown') out.markdown = `# ${title}\n\nContent of [${url}](${url}).`;
      if (kind === 'html') out.html = `<h1>${title}</h1>`;
      if (kind === 'rawHtml') out.rawHtml = `<!doctype html><html><body><h1>${title}</h1></body></html>`;
      if (kind === 'links') out.links = [`${url.replace(/\/$/, '')}/a`];
      if (kind === 'screenshot') out.screenshot = `${fake.url}/screenshots/${encodeURIComponent(url)}.png`;
    }
    return out;
  };

  const server = await serveLoopback((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const u = new URL(req.url!, 'http://fake');
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        return send(400, { success: false, error: 'Invalid JSON body' });
      }
      // Screenshot images live on the provider's public storage: no key, a PNG.
      if (req.method === 'GET' && u.pathname.startsWith('/screenshots/')) {
        fake.screenshotHits += 1;
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(SCREENSHOT_PNG);
      }
      fake.requests.push({ method: req.method!, path: u.pathname + u.search, body });
      function send(status: number, json: unknown) {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      }
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { success: false, error: 'Unauthorized: Invalid token' });
      if (fake.failWith) {
        if (fake.failWith === 429) res.setHeader('retry-after', '1');
        return send(fake.failWith, { success: false, error: fake.failWith === 429 ? 'Rate limit exceeded' : 'Internal server error', code: 'UNKNOWN_ERROR' });
      }
      const needUrl = () => {
        if (typeof body?.url !== 'string' || !/^https?:\/\//.test(body.url)) {
          send(400, { success: false, error: 'Invalid URL', details: [{ path: ['url'], message: 'Invalid url' }] });
          return false;
        }
        return true;
      };
      if (req.method === 'POST' && u.pathname === '/v2/scrape') {
        if (!needUrl()) return;
        return send(200, { success: true, data: doc(body.url, body.formats ?? ['markdown']) });
      }
      if (req.method === 'POST' && u.pathname === '/v2/search') {
        if (typeof body?.query !== 'string') return send(400, { success: false, error: 'query is required' });
        const n = Math.min(body.limit ?? 10, 3);
        const web = Array.from({ length: n }, (_, i) => ({ title: `${body.query} result ${i + 1}`, description: `About ${body.query}`, url: `https://example.org/${i + 1}`, position: i + 1 }));
        return send(200, { success: true, data: { web }, warning: null, id: `search-${++seq}`, creditsUsed: n });
      }
      if (req.method === 'POST' && u.pathname === '/v2/map') {
        if (!needUrl()) return;
        const root = body.url.replace(/\/$/, '');
        return send(200, { success: true, links: ['', '/about', '/blog'].slice(0, body.limit ?? 5000).map((p) => ({ url: root + p, title: p || 'home' })) });
      }
      if (req.method === 'POST' && u.pathname === '/v2/crawl') {
        if (!needUrl()) return;
        const id = `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`;
        const limit = Math.min(body.limit ?? 10000, 7);
        const root = body.url.replace(/\/$/, '');
        const formats = body.scrapeOptions?.formats ?? ['markdown'];
        const docs = Array.from({ length: limit }, (_, i) => doc(i === 0 ? body.url : `${root}/page-${i}`, formats));
        jobs.set(id, { polls: 0, docs, mode: fake.jobMode, cancelled: false });
        return send(200, { success: true, id, url: `${fake.url}/v2/crawl/${id}` });
      }
      const status = /^\/v2\/crawl\/([\w-]+)$/.exec(u.pathname);
      if (req.method === 'DELETE' && status) {
        const job = jobs.get(status[1]!);
        if (!job) return send(404, { success: false, error: 'Not Found' });
        job.cancelled = true;
        fake.cancelled.push(status[1]!);
        return send(200, { status: 'cancelled' });
      }
      if (req.method === 'GET' && status) {
        const job = jobs.get(status[1]!);
        if (!job || job.mode === 'lost') return send(404, { success: false, error: 'Not Found' });
        job.polls++;
        const skip = Number(u.searchParams.get('skip') ?? 0);
        const base = { total: job.docs.length, completed: 0, creditsUsed: 0, expiresAt: new Date(Date.now() + 86_400_000).toISOString(), next: null, data: [] };
        if (job.cancelled) return send(200, { ...base, status: 'cancelled' });
        if (job.mode === 'stuck' || (job.mode === 'failed' && job.polls === 1)) return send(200, { ...base, status: 'scraping' });
        if (job.mode === 'failed') return send(200, { ...base, status: 'failed' });
        const done = job.polls > 1 || skip > 0;
        const data = job.docs.slice(skip, skip + CHUNK);
        const nextSkip = skip + CHUNK;
        return send(200, {
          status: done ? 'completed' : 'scraping',
          total: job.docs.length,
          completed: done ? job.docs.length : 1,
          creditsUsed: done ? job.docs.length : 1,
          expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
          next: nextSkip < job.docs.length ? `${fake.url}/v2/crawl/${status[1]}?skip=${nextSkip}` : null,
          data,
        });
      }
      send(404, { success: false, error: 'Not Found' });
    });
  });
  fake.url = server.url;
  fake.env = { CRAWLER_A_BASE_URL: fake.url, CRAWLER_A_API_KEY: apiKey, CRAWLER_A_POLL_INTERVAL_MS: '20' };
  fake.close = () => server.close();
  return fake;
}

/** The name every provider fake exports (the contract test looks for it). */
export const startFake = startCrawlerAFake;
