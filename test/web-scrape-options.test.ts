/**
 * Issue 27 through the real server, on pages served on loopback with the SSRF guard on (only
 * 127.0.0.1 allowed): several formats in one call, selectors, waits, mobile and location
 * emulation, headers and cookies, blockAds, every page action and its outcome, a navigation an
 * action causes to a refused address, the charset rule, a PDF behind a URL, and v1 `/scrape`.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { examplePdfBase64, scrapeOptions, scrapeOutputFields } from '../core/catalogue.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { closeLoopback, serveLoopback } from './helpers/loopback.js';

const page = (body: string, head = '') => `<!doctype html><html><head><title>Options</title>${head}</head><body>${body}</body></html>`;

let site: http.Server;
let base = '';
let secretHits = 0;
/**
 * This site under a name the guard refuses (only 127.0.0.1 is allowed; localhost resolves to
 * loopback) yet that reaches it: a navigation the guard let through would be
 * counted at /secret.
 */
const refused = () => base.replace('127.0.0.1', 'localhost');

function handler(req: http.IncomingMessage, res: http.ServerResponse) {
  const u = new URL(req.url!, 'http://x');
  const send = (body: string | Buffer, type = 'text/html; charset=utf-8', status = 200) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
  switch (u.pathname) {
    case '/echo':
      return send(
        page(`<nav class="menu">Site menu</nav><main><h1>Main title</h1><p class="keep">Keep this paragraph</p><p class="drop">Drop this paragraph</p>
<p>X-Test=${req.headers['x-test'] ?? 'none'}</p><p>Cookie=${req.headers.cookie ?? 'none'}</p><p>Lang=${req.headers['accept-language'] ?? 'none'}</p>
<a href="/late">late page</a></main><footer>Footer text</footer>`),
      );
    case '/late':
      return send(page('<p>Early</p><script>setTimeout(() => { const d = document.createElement("div"); d.id = "late"; d.textContent = "Late content"; document.body.appendChild(d); }, 1200)</script>'));
    case '/env':
      return send(page('<p id="env"></p><script>document.getElementById("env").textContent = `w=${innerWidth} mobile=${/Mobile/.test(navigator.userAgent)} lang=${navigator.language} tz=${Intl.DateTimeFormat().resolvedOptions().timeZone}`</script>', '<meta name="viewport" content="width=device-width">'));
    case '/ads':
      return send(page('<p>Article text</p><div id="slot"></div><script src="/pagead/show.js"></script>'));
    case '/pagead/show.js':
      return send('document.getElementById("slot").textContent = "AD LOADED";', 'application/javascript');
    case '/form':
      return send(
        page(`<input id="q"><button id="go" onclick="document.getElementById('out').textContent = 'You typed ' + document.getElementById('q').value">Go</button>
<p id="out">nothing yet</p><p id="key">no key</p><p id="y">top</p><div style="height:4000px"></div>
<a id="bad" href="${refused()}/secret">internal</a> <a id="next" href="/echo">next</a>
<script>document.getElementById('q').addEventListener('keydown', (e) => { if (e.key === 'Enter') document.getElementById('key').textContent = 'pressed Enter'; });
addEventListener('scroll', () => { document.getElementById('y').textContent = 'scrolled ' + Math.round(scrollY); });</script>`),
      );
    case '/charset':
      // UTF-8 bytes under a meta that says windows-1252, and no charset in the header.
      return send(Buffer.from(page('<p>Café naïve — déjà vu</p>', '<meta charset="windows-1252">'), 'utf8'), 'text/html');
    case '/cp1252':
      // A real windows-1252 page: typographic quotes and the euro sign live in 0x80-0x9F.
      return send(Buffer.concat([Buffer.from('<!doctype html><title>cp</title><p>'), Buffer.from([0x93, 0x71, 0x94, 0x20, 0x80, 0x35, 0x20, 0xe9]), Buffer.from('</p>')]), 'text/html; charset=windows-1252');
    case '/doc.pdf':
      return send(Buffer.from(examplePdfBase64(), 'base64'), 'application/pdf');
    case '/big300':
      return send(page(`<p>${'x'.repeat(300_000)}</p>`));
    case '/secret':
      secretHits++;
      return send('secret');
    default:
      return send('not found', 'text/plain', 404);
  }
}

before(async () => {
  ({ server: site, base } = await serveLoopback(handler));
});
after(() => {
  closeLoopback(site);
});

describe('scrape_page options (issue 27)', () => {
  let s: TestServer;
  let key = '';
  const run = (input: unknown, k = key) => s.call('POST', '/api/v2/run', { key: k, body: { type: 'capability', id: 'scrape_page', input } });
  const credits = async (k = key) => (await s.call('GET', '/api/v2/balance', { key: k })).json.data.credits as number;

  before(async () => {
    s = await startServer({ serviceConfig: pluginsConfig(['web', 'doc_text']), env: { ALLOW_HOSTS: '127.0.0.1', WEB_PAGE_TIMEOUT_MS: '8000', BROWSER_MAX_PAGES: '1' } });
    key = (await s.createKey({ credits: 10_000 })).key;
  });
  after(() => s?.close());

  it('formats: markdown, html, rawHtml, links and a screenshot in one call, each in its own field, for 10 credits', async () => {
    const before = await credits();
    const res = await run({ url: `${base}/echo`, formats: ['markdown', 'html', 'rawHtml', 'links', 'screenshot'] });
    assert.equal(res.status, 200, res.text);
    const d = res.json.data;
    assert.match(d.markdown, /# Main title/);
    assert.equal(d.content, d.markdown, 'content holds the first format');
    assert.match(d.html, /<p class="keep">Keep this paragraph<\/p>/);
    assert.doesNotMatch(d.html, /<script/);
    assert.match(d.rawHtml, /^<!DOCTYPE html><html><head><title>Options<\/title>/);
    assert.deepEqual(d.links, [`${base}/late`]);
    const png = Buffer.from(await (await fetch(d.screenshot)).arrayBuffer());
    assert.equal(png.readUInt32BE(0), 0x89504e47);
    assert.equal(await credits(), before - 10);
  });

  it('onlyMainContent, includeTags and excludeTags shape the content before conversion', async () => {
    const res = await run({ url: `${base}/echo`, formats: ['markdown'], includeTags: ['main'], excludeTags: ['.drop', 'a'], renderJs: false });
    assert.equal(res.status, 200, res.text);
    const md = res.json.data.markdown as string;
    assert.match(md, /Keep this paragraph/);
    for (const gone of ['Drop this paragraph', 'Site menu', 'Footer text', 'late page']) assert.doesNotMatch(md, new RegExp(gone));
    const main = await run({ url: `${base}/echo`, onlyMainContent: true, renderJs: false });
    assert.equal(main.json.data.cleaned, true);
  });

  it('headers and cookies reach the page on both paths, never another call; Host and hop-by-hop headers are a free 400', async () => {
    for (const renderJs of [true, false]) {
      const res = await run({ url: `${base}/echo`, renderJs, headers: { 'X-Test': 'abc' }, cookies: [{ name: 'sid', value: 's1' }] });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.data.content, /X-Test=abc/, `renderJs ${renderJs}`);
      assert.match(res.json.data.content, /Cookie=sid=s1/, `renderJs ${renderJs}`);
    }
    const other = (await s.createKey({ credits: 100 })).key;
    const plain = await run({ url: `${base}/echo` }, other);
    assert.match(plain.json.data.content, /X-Test=none/);
    assert.match(plain.json.data.content, /Cookie=none/);
    const before = await credits();
    for (const h of ['Host', 'Connection', 'Transfer-Encoding']) {
      const bad = await run({ url: `${base}/echo`, headers: { [h]: 'x' } });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.json.error, `'headers' must not set Host or hop-by-hop headers (got '${h}').`);
    }
    assert.equal(await credits(), before);
  });

  it('waitForSelector waits for late content; one that never appears is a free 502 within timeout', async () => {
    const early = await run({ url: `${base}/late` });
    assert.doesNotMatch(early.json.data.content, /Late content/);
    const res = await run({ url: `${base}/late`, waitForSelector: '#late' });
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.data.content, /Late content/);
    const waited = await run({ url: `${base}/late`, waitFor: 2000 });
    assert.match(waited.json.data.content, /Late content/);
    const before = await credits();
    const never = await run({ url: `${base}/late`, waitForSelector: '#never', timeout: 2000 });
    assert.equal(never.status, 502, never.text);
    assert.equal(never.json.error, `Failed to retrieve ${base}/late: no element matched '#never' within 2 s.`);
    assert.equal(await credits(), before);
  });

  it('mobile emulates a phone; location sets the language, Accept-Language and timezone', async () => {
    const desk = await run({ url: `${base}/env` });
    assert.match(desk.json.data.content, /w=1280 mobile=false/);
    const phone = await run({ url: `${base}/env`, mobile: true });
    assert.match(phone.json.data.content, /w=390 mobile=true/);
    const de = await run({ url: `${base}/env`, location: { country: 'DE' } });
    assert.match(de.json.data.content, /lang=de-DE tz=Europe\/Berlin/);
    const echo = await run({ url: `${base}/echo`, location: { languages: ['fr-CA'] }, renderJs: false });
    assert.match(echo.json.data.content, /Lang=fr-CA,fr;q=0\.9/);
  });

  it('blockAds keeps ad tags from loading', async () => {
    assert.match((await run({ url: `${base}/ads` })).json.data.content, /AD LOADED/);
    const blocked = await run({ url: `${base}/ads`, blockAds: true });
    assert.equal(blocked.status, 200, blocked.text);
    assert.doesNotMatch(blocked.json.data.content, /AD LOADED/);
  });

  it('actions: write, click, press, scroll, wait, screenshot, scrape and executeJavascript, each with its outcome', async () => {
    const res = await run({
      url: `${base}/form`,
      formats: ['markdown'],
      actions: [
        { type: 'write', selector: '#q', text: 'hello' },
        { type: 'click', selector: '#go' },
        { type: 'click', selector: '#q' },
        { type: 'press', key: 'Enter' },
        { type: 'scroll', direction: 'down', amount: 500 },
        { type: 'wait', milliseconds: 50 },
        { type: 'wait', selector: '#out' },
        { type: 'screenshot' },
        { type: 'scrape' },
        { type: 'executeJavascript', script: 'return document.getElementById("out").textContent + " / " + location.pathname' },
      ],
    });
    assert.equal(res.status, 200, res.text);
    const d = res.json.data;
    assert.match(d.markdown, /You typed hello/);
    assert.match(d.markdown, /pressed Enter/);
    assert.match(d.markdown, /scrolled 500/);
    assert.deepEqual(d.actions.map((a: { type: string }) => a.type), ['write', 'click', 'click', 'press', 'scroll', 'wait', 'wait', 'screenshot', 'scrape', 'executeJavascript']);
    assert.ok(d.actions.every((a: { ms: number }) => Number.isInteger(a.ms)));
    const shot = Buffer.from(await (await fetch(d.actions[7].screenshot)).arrayBuffer());
    assert.equal(shot.readUInt32BE(0), 0x89504e47);
    assert.match(d.actions[8].html, /You typed hello/);
    assert.equal(d.actions[8].url, `${base}/form`);
    assert.equal(d.actions[9].returnValue, 'You typed hello / /form');
  });

  it('a click that navigates is followed; one that navigates to a refused address is the guard 400, free, never reached', async () => {
    const next = await run({ url: `${base}/form`, actions: [{ type: 'click', selector: '#next' }] });
    assert.equal(next.status, 200, next.text);
    assert.equal(next.json.data.url, `${base}/echo`);
    assert.match(next.json.data.content, /Main title/);
    const before = await credits();
    const hits = secretHits;
    const bad = await run({ url: `${base}/form`, actions: [{ type: 'click', selector: '#bad' }] });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.json.error, /^URL not allowed: localhost resolves to a loopback address/);
    const script = await run({ url: `${base}/form`, actions: [{ type: 'executeJavascript', script: `location.href = "${refused()}/secret"` }] });
    assert.equal(script.status, 400, script.text);
    assert.equal(secretHits, hits);
    assert.equal(await credits(), before);
  });

  it('a failing action is a free 400 naming it; bad action lists are refused up front', async () => {
    const before = await credits();
    const missing = await run({ url: `${base}/form`, actions: [{ type: 'wait', milliseconds: 1 }, { type: 'click', selector: '#missing' }] });
    assert.equal(missing.status, 400, missing.text);
    assert.equal(missing.json.error, "Action 2 (click) failed: no visible element matches '#missing'.");
    const thrown = await run({ url: `${base}/form`, actions: [{ type: 'executeJavascript', script: 'throw new Error("boom")' }] });
    assert.equal(thrown.status, 400, thrown.text);
    assert.match(thrown.json.error, /^Action 1 \(executeJavascript\) failed: the script threw: .*boom/);
    const tooMany = await run({ url: `${base}/form`, actions: Array.from({ length: 51 }, () => ({ type: 'wait', milliseconds: 1 })) });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.json.error, /^'actions' must be a list of at most 50 actions/);
    const noWhat = await run({ url: `${base}/form`, actions: [{ type: 'wait' }] });
    assert.equal(noWhat.json.error, "Action 1 (wait) needs either 'milliseconds' or 'selector'.");
    const plain = await run({ url: `${base}/form`, renderJs: false, actions: [{ type: 'click', selector: '#go' }] });
    assert.equal(plain.status, 400);
    assert.equal(await credits(), before);
  });

  it('the pages scrape actions capture share the page size cap: past it a 413, free', async () => {
    const before = await credits();
    const res = await run({ url: `${base}/big300`, actions: Array.from({ length: 40 }, () => ({ type: 'scrape' })) });
    assert.equal(res.status, 413, res.text.slice(0, 300));
    assert.match(res.json.error, /^Action 3\d \(scrape\) failed: the pages captured by scrape actions are larger than the 10\.5 MB limit\.$/);
    assert.equal(await credits(), before);
  });

  it('a meta charset that contradicts valid UTF-8 bytes loses to the bytes, on both paths', async () => {
    for (const renderJs of [false, true]) {
      const res = await run({ url: `${base}/charset`, renderJs });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.data.content, /Café naïve — déjà vu/, `renderJs ${renderJs}`);
      const cp = await run({ url: `${base}/cp1252`, renderJs });
      assert.match(cp.json.data.content, /“q” €5 é/, `windows-1252, renderJs ${renderJs}`);
    }
  });

  it('a PDF behind a URL is read to text by doc-to-text; parsePDF false answers a file link', async () => {
    const before = await credits();
    const res = await run({ url: `${base}/doc.pdf`, formats: ['markdown'] });
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.data.markdown, /Hello from doc_to_text/);
    assert.equal(res.json.data.metadata.contentType, 'application/pdf');
    const link = await run({ url: `${base}/doc.pdf`, parsePDF: false });
    assert.equal(link.status, 200, link.text);
    const file = await fetch(link.json.data.content);
    assert.equal(file.headers.get('content-type'), 'application/pdf');
    assert.equal(Buffer.from(await file.arrayBuffer()).toString('latin1', 0, 5), '%PDF-');
    assert.equal(await credits(), before - 20, 'each scrape 10 credits: the nested doc-to-text adds only its OCR pages (5 each), and this PDF has a text layer');
  });

  it('v1 /scrape accepts the same extras and keeps its answer shape', async () => {
    const res = await s.call('POST', '/api/v1/scrape', { key, body: { url: `${base}/echo`, formats: ['markdown', 'links'], excludeTags: ['.drop'], renderJs: false } });
    assert.equal(res.status, 200, res.text);
    for (const field of ['title', 'url', 'content', 'metadata', 'format', 'cleaned']) assert.ok(field in res.json, field);
    assert.equal(res.json.format, 'markdown');
    assert.doesNotMatch(res.json.content, /Drop this paragraph/);
    assert.deepEqual(res.json.links, [`${base}/late`]);
  });

  it('discovery, the v1 OpenAPI document and the MCP tool describe every new field', async () => {
    const described = (where: string, schema: any, fields: string[], resolve: (x: any) => any = (x) => x) => {
      const props = resolve(schema).properties ?? {};
      for (const f of fields) assert.ok(typeof resolve(props[f])?.description === 'string' && resolve(props[f]).description.length > 10, `${where}: ${f} described`);
    };
    const inputs = Object.keys(scrapeOptions);
    const outputs = Object.keys(scrapeOutputFields);
    const details = await s.call('POST', '/api/v2/details', { key, body: { id: 'scrape_page' } });
    described('details input', details.json.data.input, inputs);
    described('details output', details.json.data.output, outputs);
    const v1 = (await s.call('GET', '/openapi/v1.json')).json;
    const ref = (x: any): any => (x?.$ref ? ref(x.$ref.slice(2).split('/').reduce((o: any, k: string) => o[k], v1)) : x);
    const op = v1.paths['/api/v1/scrape'].post;
    described('openapi v1 request', op.requestBody.content['application/json'].schema, inputs, ref);
    described('openapi v1 answer', op.responses['200'].content['application/json'].schema, outputs, ref);
    const client = new Client({ name: 'web-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'scrape_page')!;
      described('mcp input', tool.inputSchema, inputs);
    } finally {
      await client.close();
    }
  });
});
