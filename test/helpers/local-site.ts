/**
 * A loopback site for crawl, map and batch tests (issue 25): robots.txt with Disallow rules and
 * `Sitemap:` lines, a sitemap index pointing at a plain sitemap and a gzipped one, pages linking
 * to each other, pages only the gzipped sitemap lists, paths that path rules select, query
 * variants of one page, pages that fail for batches and (optionally) a gzip bomb. The service
 * reaches it with `ALLOW_PRIVATE_NETWORK=true`. It answers one host; subdomains (`sub.localhost`,
 * loopback by the SSRF guard's resolver) have their own site in crawl-subdomains.test.ts.
 *
 * The site's shape (paths relative to its origin):
 *   /                 links /docs/a, /blog/one, /about, /about?ref=x, /about?ref=y, /private/secret
 *   /docs/a           links /docs/b, /docs/c, /        /docs/b → /docs/a        /docs/c (no links)
 *   /blog/one         links /blog/two                  /blog/two (no links)
 *   /about            (with any query: the same page)
 *   /gz-only/alpha, /gz-only/beta    listed only in the gzipped sitemap, linked from nowhere
 *   /private/*        disallowed by robots.txt (listed in the plain sitemap and linked from /)
 *   /page/N           a plain page (batches)         /binary/N   application/octet-stream (a scrape of it fails)
 * Sitemaps: robots.txt names /sitemap-index.xml (and /bomb.xml.gz with `bomb`); the index names
 * /sitemaps/plain.xml (/, /docs/a, /docs/b, /blog/one, /private/listed) and
 * /sitemaps/extra.xml.gz (/gz-only/alpha, /gz-only/beta, /blog/two). /sitemap.xml is a 404.
 */
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';

/** Options of {@link serveLocalSite}. */
export interface LocalSiteOptions {
  /** Crawl-delay in seconds written in robots.txt (default none). */
  crawlDelay?: number;
  /**
   * Lists /bomb.xml.gz in robots.txt: a gzipped urlset whose first entry is `/bomb-entry`,
   * padded past 24 MB once inflated (about 25 KB on the wire). A reader that caps inflation
   * never sees that entry.
   */
  bomb?: boolean;
}

/** A running local site. */
export interface LocalSite {
  /** Origin, e.g. `http://127.0.0.1:1234` (no trailing slash). */
  url: string;
  /** Requests received, by path (query left out). */
  hits: Map<string, number>;
  /** Paths requested, in order (with the query). */
  log: string[];
  /** When each request of `log` arrived (ms since the epoch). */
  times: number[];
  close(): Promise<void>;
}

/** Paths only the gzipped sitemap lists. */
export const GZ_ONLY_PATHS = ['/gz-only/alpha', '/gz-only/beta'];
/** Every page path of the site a full, unfiltered crawl may return (robots.txt allows them). */
export const ALLOWED_PAGE_PATHS = ['/', '/docs/a', '/docs/b', '/docs/c', '/blog/one', '/blog/two', '/about', ...GZ_ONLY_PATHS];

const page = (title: string, links: string[], extra = '') =>
  `<!doctype html><html><head><title>${title}</title><meta name="description" content="About ${title}."></head><body><h1>${title}</h1>${extra}${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;

const PAGES: Record<string, string> = {
  '/': page('Home', ['/docs/a', '/blog/one', '/about', '/about?ref=x', '/about?ref=y', '/private/secret', 'http://external.invalid/x', 'mailto:a@b.c']),
  '/docs/a': page('Doc A', ['/docs/b', '/docs/c', '/']),
  '/docs/b': page('Doc B', ['/docs/a']),
  '/docs/c': page('Doc C', []),
  '/blog/one': page('Blog one', ['/blog/two']),
  '/blog/two': page('Blog two', []),
  '/about': page('About', ['/']),
  '/gz-only/alpha': page('Alpha', []),
  '/gz-only/beta': page('Beta', []),
  '/private/secret': page('Secret', []),
  '/private/listed': page('Listed secret', []),
};

const urlset = (origin: string, paths: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>${origin}${p}</loc></url>`).join('')}</urlset>`;

let bombCache: Buffer | undefined;
function bomb(origin: string): Buffer {
  // The padding compresses ~1000:1; made once per process.
  bombCache ??= gzipSync(Buffer.concat([Buffer.from(`<?xml version="1.0"?><urlset><url><loc>${origin}/bomb-entry</loc></url>`), Buffer.alloc(24 * 1024 * 1024, 0x20), Buffer.from('</urlset>')]));
  return bombCache;
}

/** Starts the site on a free loopback port. */
export async function serveLocalSite(opts: LocalSiteOptions = {}): Promise<LocalSite> {
  const hits = new Map<string, number>();
  const log: string[] = [];
  const times: number[] = [];
  let origin = '';
  const server = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    hits.set(u.pathname, (hits.get(u.pathname) ?? 0) + 1);
    log.push(u.pathname + u.search);
    times.push(Date.now());
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    const p = u.pathname;
    if (p === '/robots.txt') {
      const lines = ['User-agent: *', 'Disallow: /private', ...(opts.crawlDelay ? [`Crawl-delay: ${opts.crawlDelay}`] : []), `Sitemap: ${origin}/sitemap-index.xml`, ...(opts.bomb ? [`Sitemap: ${origin}/bomb.xml.gz`] : [])];
      return send(200, 'text/plain', lines.join('\n') + '\n');
    }
    if (p === '/sitemap-index.xml') {
      return send(200, 'application/xml', `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/sitemaps/plain.xml</loc></sitemap><sitemap><loc>${origin}/sitemaps/extra.xml.gz</loc></sitemap></sitemapindex>`);
    }
    if (p === '/sitemaps/plain.xml') return send(200, 'application/xml', urlset(origin, ['/', '/docs/a', '/docs/b', '/blog/one', '/private/listed']));
    if (p === '/sitemaps/extra.xml.gz') return send(200, 'application/gzip', gzipSync(urlset(origin, [...GZ_ONLY_PATHS, '/blog/two'])));
    if (p === '/bomb.xml.gz' && opts.bomb) return send(200, 'application/gzip', bomb(origin));
    if (/^\/page\/\d+$/.test(p)) return send(200, 'text/html; charset=utf-8', page(`Page ${p.slice(6)}`, []));
    if (/^\/binary\/\d+$/.test(p)) return send(200, 'application/octet-stream', Buffer.from([0, 1, 2, 3]));
    const html = PAGES[p];
    if (html) return send(200, 'text/html; charset=utf-8', html);
    return send(404, 'text/html', '<title>Not found</title><h1>Not found</h1>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    hits,
    log,
    times,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
