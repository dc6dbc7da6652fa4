/**
 * Crawling politely through the real server (issue 4): robots.txt Crawl-delay, each origin's own
 * robots.txt, and a cap on the origins of one host a crawl follows.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { serveLoopback, type LoopbackServer } from '../core/testing/index.js';
import { startServer } from './helpers/server.js';
import { webConfig } from './helpers/web-site.js';

describe('crawl-delay from robots.txt', () => {
  it('spaces requests by the Crawl-delay', async () => {
    const times: number[] = [];
    const site = await serveLoopback((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('User-agent: *\nCrawl-delay: 1\n');
      }
      times.push(Date.now());
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<a href="/a">a</a><a href="/b">b</a>');
    });
    const s = await startServer({ serviceConfig: webConfig(), env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    try {
      const { key } = await s.createKey({ credits: 100 });
      const res = await s.call('POST', '/api/v1/crawl', { key, body: { url: `${site.url}/`, limit: 3 } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.pages, 3);
      for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 950, `request ${i} came ${times[i]! - times[i - 1]!} ms after the previous one`);
    } finally {
      await s.close();
      await site.close();
    }
  });
});

describe('robots.txt per origin', () => {
  it('checks a same-site link on another origin against that origin\'s robots.txt', async () => {
    const fetched: string[] = [];
    const robotsReads: number[] = [];
    const serve = (robots: string, page: (req: http.IncomingMessage) => string) =>
      serveLoopback((req, res) => {
        if (req.url === '/robots.txt') {
          robotsReads.push(req.socket.localPort!);
          res.writeHead(200, { 'content-type': 'text/plain' });
          return res.end(robots);
        }
        fetched.push(`${req.socket.localPort}${req.url}`);
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(page(req));
      });
    // Same host, another port: the same site for the crawler, another origin for robots.txt.
    const other = await serve('User-agent: *\nDisallow: /private\n', () => '<p>other origin</p>');
    const otherPort = Number(new URL(other.url).port);
    const start = await serve('User-agent: *\nDisallow:\n', () => `<a href="http://127.0.0.1:${otherPort}/open">open</a><a href="http://127.0.0.1:${otherPort}/private">private</a>`);
    const s = await startServer({ serviceConfig: webConfig(), env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    try {
      const { key } = await s.createKey({ credits: 100 });
      const res = await s.call('POST', '/api/v1/crawl', { key, body: { url: `${start.url}/`, limit: 5 } });
      assert.equal(res.status, 200, res.text);
      const urls = res.json.results.map((r: { url: string }) => r.url);
      assert.ok(urls.includes(`http://127.0.0.1:${otherPort}/open`), urls.join(' '));
      assert.deepEqual(fetched.filter((f) => f.startsWith(`${otherPort}/`)), [`${otherPort}/open`]);
      assert.equal(res.json.pages, 2);
      assert.deepEqual(robotsReads.filter((p) => p === otherPort), [otherPort], 'read once per crawl');

      // A link the limit leaves unvisited costs no robots.txt request on its origin.
      robotsReads.length = 0;
      const one = await s.call('POST', '/api/v1/crawl', { key, body: { url: `${start.url}/`, limit: 1 } });
      assert.equal(one.status, 200, one.text);
      assert.equal(one.json.pages, 1);
      assert.deepEqual(robotsReads.filter((p) => p === otherPort), []);
    } finally {
      await s.close();
      await Promise.all([start.close(), other.close()]);
    }
  });
});

describe('crawl across many origins of one host', () => {
  it('follows at most 8 origins of the site, however many ports a page links to', async () => {
    const origins = new Set<number>();
    const servers: LoopbackServer[] = [];
    const links: string[] = [];
    for (let i = 0; i < 12; i++) {
      const server = await serveLoopback((req, res) => {
        if (req.url !== '/robots.txt') origins.add(req.socket.localPort!);
        res.writeHead(req.url === '/robots.txt' ? 404 : 200, { 'content-type': 'text/html' });
        res.end(i === 0 ? links.join('') : '<p>page</p>');
      });
      servers.push(server);
      links.push(`<a href="${server.url}/p">port</a>`);
    }
    const s = await startServer({ serviceConfig: webConfig(), env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    try {
      const { key } = await s.createKey({ credits: 1000 });
      const res = await s.call('POST', '/api/v1/crawl', { key, body: { url: `${servers[0]!.url}/`, limit: 20 } });
      assert.equal(res.status, 200, res.text);
      assert.equal(origins.size, 8);
      // The start page, its own /p and one page on each of the 7 other origins.
      assert.equal(res.json.pages, 9);
    } finally {
      await s.close();
      await Promise.all(servers.map((server) => server.close()));
    }
  });
});

