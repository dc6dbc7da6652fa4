/**
 * Issue 24 for the browser engine, through the real server with one page slot: a caller that
 * hangs up stops its page at once (the page's own connections close, the slot is free and the
 * call is free), and the browser queue serves keys in turn, so one key's backlog does not hold
 * up another key's first page.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { closeLoopback, serveLoopback } from './helpers/loopback.js';

let site: http.Server;
let base = '';
/** Resolved when the page's long-poll request arrives, and when its connection closes. */
let held: { arrived: Promise<void>; closed: Promise<void> };
let onArrive = () => {};
let onClose = () => {};
const served: string[] = [];

function expectHeld() {
  held = { arrived: new Promise<void>((r) => (onArrive = r)), closed: new Promise<void>((r) => (onClose = r)) };
}

before(async () => {
  ({ server: site, base } = await serveLoopback((req, res) => {
    const u = new URL(req.url!, 'http://x');
    if (u.pathname === '/held') {
      onArrive();
      req.socket.on('close', () => onClose());
      return; // never answered: only the page going away ends it
    }
    if (u.pathname === '/poll') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<title>Poll</title><p>Waiting</p><script>fetch("/held")</script>');
    }
    served.push(u.searchParams.get('who') ?? '');
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<title>Page</title><p>${u.searchParams.get('who')}</p>`);
  }));
});
after(() => {
  closeLoopback(site);
});

/** Resolves when `check` passes, polling; fails the test with `what` if it never does. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`never happened: ${what}`);
}

describe('browser jobs are cancellable and queued fairly (issue 24)', () => {
  let s: TestServer;
  let a = '';
  let b = '';
  const gauge = async (name: string) => {
    const text = (await s.call('GET', '/metrics', { key: s.adminToken })).text;
    return Number(new RegExp(`^${name}\\{engine="browser"\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  };
  const credits = async (key: string) => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  before(async () => {
    s = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ALLOW_PRIVATE_NETWORK: 'true', BROWSER_MAX_PAGES: '1', WEB_PAGE_TIMEOUT_MS: '60000' } });
    a = (await s.createKey({ credits: 1000 })).key;
    b = (await s.createKey({ credits: 1000 })).key;
  });
  after(() => s?.close());

  it("a caller's hang-up closes its page (its connections end), frees the slot, and costs nothing", async () => {
    const before = await credits(a);
    expectHeld();
    const ac = new AbortController();
    const call = fetch(`${s.url}/api/v2/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'capability', id: 'scrape_page', input: { url: `${base}/poll`, waitForSelector: '#never' } }),
      signal: ac.signal,
    }).catch(() => undefined);
    await held.arrived;
    assert.equal(await gauge('cia_engine_active_jobs'), 1);
    ac.abort();
    await call;
    await held.closed;
    await eventually(async () => (await gauge('cia_engine_active_jobs')) === 0, 'the page slot freed');
    // The slot serves the next caller.
    const next = await s.call('POST', '/api/v2/run', { key: b, body: { type: 'capability', id: 'scrape_page', input: { url: `${base}/page?who=next` } } });
    assert.equal(next.status, 200, next.text);
    await eventually(async () => (await credits(a)) === before, 'the hung-up call released its hold');
  });

  it("one key's backlog waits behind another key's first page, not the other way round", async () => {
    served.length = 0;
    expectHeld();
    const run = (key: string, who: string, extra: Record<string, unknown> = {}) =>
      s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input: { url: `${base}/page?who=${who}`, ...extra } } });
    // Key a holds the only slot (a page that waits 1.5 s) and queues three more pages.
    const first = run(a, 'a0', { waitFor: 1500 });
    await eventually(async () => served.includes('a0'), 'the first page of key a started');
    const backlog = [run(a, 'a1'), run(a, 'a2'), run(a, 'a3')];
    await eventually(async () => (await gauge('cia_engine_queue_depth')) === 3, "key a's backlog queued");
    const other = run(b, 'b0');
    const results = await Promise.all([first, ...backlog, other]);
    for (const r of results) assert.equal(r.status, 200, r.text);
    assert.deepEqual(served, ['a0', 'b0', 'a1', 'a2', 'a3']);
  });
});
