/**
 * The loopback site the web-lane tests crawl and scrape, and the lane's plugin configuration
 * (shared by test/web*.test.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './plugins.js';

/** The plugins of this lane, with the deployment's provider order (crawler_a → spider_a → web). */
export function webConfig() {
  return pluginsConfig(['web', 'crawler_a', 'spider_a', 'shot_a', 'browser_a'], { crawl_site: ['crawler_a', 'spider_a', 'web'], screenshot: ['web', 'crawler_a', 'shot_a', 'browser_a'] });
}

export const SITE_PAGES = 30;
/** Requests the site received, by path. */
export const hits = new Map<string, number>();
const hit = (p: string) => hits.set(p, (hits.get(p) ?? 0) + 1);

const STATIC = `<!doctype html><html lang="en-GB"><head><title>Static page</title>
<meta name="description" content="A static test page."><meta property="og:title" content="OG static">
<meta property="og:image" content="/img/card.png"><link rel="canonical" href="https://example.org/static">
</head><body><h1>Hello static</h1><p>Read <a href="/article">the article</a>.</p>
<table><tr><th>Name</th><th>Qty</th></tr><tr><td>Apples</td><td>3</td></tr></table>
<pre><code class="language-js">const x = 1;</code></pre></body></html>`;

const ARTICLE = `<!doctype html><html><head><title>Article</title></head><body>
<nav class="menu"><a href="/">Home</a> <a href="/about">About us menu</a></nav>
<div class="ad banner">BUY CHEAP WIDGETS NOW advertisement</div>
<article><h1>The real story</h1>${'<p>The article body explains the interesting subject in depth, with enough words for extraction to find it. </p>'.repeat(12)}</article>
<aside class="sidebar">Related: trending sidebar links</aside>
<footer>Copyright footer text 2026</footer></body></html>`;

/** The crawl site: a tree of 30 pages (3 children each), cycles back to the root, duplicates and off-site links. */
function sitePage(i: number): string {
  const kids = [1, 2, 3].map((k) => 3 * i + k).filter((k) => k < SITE_PAGES);
  const links = kids.map((k) => `<a href="/site/p${k}">child ${k}</a>`).join(' ');
  return `<!doctype html><html><head><title>Page ${i}</title></head><body><h1>Page ${i}</h1>${links}
  <a href="/site/p0">root again</a> <a href="/site/p${i}#top">self with fragment</a> <a href="/site/p${i}/?utm_source=x">self tracked</a>
  <a href="http://external.invalid/elsewhere">external</a> <a href="/site/private">private area</a>
  <a href="mailto:x@example.org">mail</a></body></html>`;
}

/** The site's request handler; `port` names its own port (for the page that fetches a private address), `pdf` is served at /doc.pdf. */
export function siteHandler(port: () => number, pdf: () => Uint8Array = () => new Uint8Array()) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const u = new URL(req.url!, 'http://x');
    hit(u.pathname);
    const html = (body: string, status = 200) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    };
    const site = /^\/site\/p(\d+)$/.exec(u.pathname);
    if (site) return Number(site[1]) < SITE_PAGES ? html(sitePage(Number(site[1]))) : html('<h1>Not here</h1>', 404);
    switch (u.pathname) {
      case '/robots.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('User-agent: *\nDisallow: /site/private\n');
      case '/static':
        return html(STATIC);
      case '/article':
        return html(ARTICLE);
      case '/js':
        return html(`<!doctype html><title>JS page</title><div id="app"></div><script>
          document.addEventListener('DOMContentLoaded', () => { document.getElementById('app').innerHTML = '<p>Rendered by script</p>'; });</script>`);
      case '/redirect':
        res.writeHead(302, { location: u.searchParams.get('to') ?? '/static' });
        return res.end();
      case '/missing':
        return html('<title>Not found</title><h1>No such page</h1>', 404);
      case '/slow':
        setTimeout(() => html('<p>too late</p>'), 5000).unref();
        return;
      case '/huge':
        return html(`<p>${'x'.repeat(2_000_000)}</p>`);
      case '/doc.pdf':
        res.writeHead(200, { 'content-type': 'application/pdf' });
        return res.end(pdf());
      case '/feed.xml':
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        return res.end('<?xml version="1.0"?><rss version="2.0"><channel><title>Feed</title></channel></rss>');
      case '/image.png':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(Buffer.from('89504e470d0a1a0a', 'hex'));
      case '/secret':
        res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
        return res.end('internal secret');
      case '/fetches':
        return html(`<!doctype html><title>Fetcher</title><p id="out">waiting</p><script>
          fetch('http://localhost:${port()}/secret').then(r => r.text()).then(t => { out.textContent = 'leaked ' + t; }, () => { out.textContent = 'blocked'; });</script>`);
      default:
        return html('<h1>Home</h1>');
    }
  };
}

/** The site on a free loopback port: its base URL and a close that ends kept-alive connections too. */
export async function serveSite(pdf?: () => Uint8Array): Promise<{ base: string; port: number; close(): void }> {
  let port = 0;
  const server = http.createServer(siteHandler(() => port, pdf));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
