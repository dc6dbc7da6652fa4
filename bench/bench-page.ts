/**
 * The page bench:scrape and its reset benches load: a script renders the content (so `renderJs`
 * matters), served by a local site on port 0. One copy, so the three benches measure the same page.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const BENCH_PAGE = `<!doctype html><html lang="en"><head><title>Bench page</title><meta name="description" content="bench"></head>
<body><nav><a href="/a">A</a> <a href="/b">B</a></nav><main id="app"></main>
<script>document.getElementById('app').innerHTML = '<h1>Rendered</h1>' + '<p>Paragraph of rendered text with a <a href="/x">link</a>.</p>'.repeat(30);</script>
</body></html>`;

/** Serves BENCH_PAGE at every path; `close` also ends kept-alive connections. */
export async function serveBenchPage(): Promise<{ url: string; close(): void }> {
  const site = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(BENCH_PAGE);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/`,
    close() {
      site.closeAllConnections();
      site.close();
    },
  };
}
