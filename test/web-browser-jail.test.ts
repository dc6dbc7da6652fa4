/**
 * Issue 24 for the browser, through the real server: every process of the warm Chromium (the
 * browser, its zygotes, renderers and utility processes) runs with an environment of its own,
 * never the service's secrets, and, when the service is root, as a uid of its own inside a memory
 * group of BROWSER_MEMORY_MB; a page that allocates past it fails that call (502, free) and the
 * next call gets a fresh browser. The service's secrets are put where a deployment keeps them, the
 * process environment puppeteer used to hand on whole.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { descendsFrom } from '../core/engines/processes.js';

const SECRET = `admin-${randomBytes(6).toString('hex')}`;
const PROVIDER_KEY = `model-${randomBytes(6).toString('hex')}`;
const SECRETS = { ADMIN_TOKEN: SECRET, MODEL_API_KEY: PROVIDER_KEY, SEARCH_A_API_KEY: PROVIDER_KEY };
const saved = { ...process.env };
let site: http.Server;
let base = '';
let s: TestServer;
/** A 512 MB browser. */
let capped: TestServer;
const asRoot = process.getuid?.() === 0;

before(async () => {
  Object.assign(process.env, SECRETS);
  site = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    // 64 MB chunks, each written so its pages are really taken, until well past the cap.
    if (req.url === '/hog') return res.end('<!doctype html><title>Hog</title><script>const kept = []; for (let i = 0; i < 64; i++) kept.push(new Uint8Array(64 << 20).fill(i + 1));</script><p>survived</p>');
    res.end('<!doctype html><title>Jail</title><p>Rendered by a confined browser</p><script>document.title = "Jail done"</script>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const env = { MODEL_API_KEY: PROVIDER_KEY, SEARCH_A_API_KEY: PROVIDER_KEY, ALLOW_PRIVATE_NETWORK: 'true', BROWSER_MAX_PAGES: '1' };
  [s, capped] = await Promise.all([
    startServer({ serviceConfig: pluginsConfig(['web']), env }),
    startServer({ serviceConfig: pluginsConfig(['web']), env: { ...env, BROWSER_MEMORY_MB: '512', WEB_PAGE_TIMEOUT_MS: '20000' } }),
  ]);
});
after(async () => {
  await s?.close();
  await capped?.close();
  site?.close();
  for (const k of Object.keys(SECRETS)) if (saved[k] === undefined) delete process.env[k];
  else process.env[k] = saved[k];
});

/** Live Chromium processes started by this test process (the server runs in it), with their environ and uid. */
function chromiumProcesses(): { pid: number; type: string; environ: string; uid: number }[] {
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    try {
      // Chromium rewrites its children's titles into one space-separated string.
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
      if (!/chrom/.test(argv[0] ?? '') || !descendsFrom(pid, process.pid)) continue;
      const type = argv.find((a) => a.startsWith('--type='))?.slice(7) ?? 'browser';
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
      found.push({ pid, type, environ, uid });
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

/** A rendered scrape; the browser stays warm after it, with its renderers and utility processes. */
async function renderedScrape(srv: TestServer, key: string) {
  const r = await srv.call('POST', '/api/v1/scrape', { key, body: { url: `${base}/`, renderJs: true } });
  assert.equal(r.status, 200, r.text);
  assert.match(JSON.stringify(r.json), /Rendered by a confined browser/);
  return r;
}

test('no process of the browser holds ADMIN_TOKEN or a provider key; its environment is its own', async () => {
  const { key } = await s.createKey({ credits: 1000 });
  await renderedScrape(s, key);
  const procs = chromiumProcesses();
  const types = new Set(procs.map((p) => p.type));
  assert.ok(types.has('browser') && types.has('renderer'), `browser and renderer alive: ${[...types].join(', ')}`);
  for (const p of procs) {
    assert.ok(!p.environ.includes(SECRET) && !p.environ.includes(PROVIDER_KEY), `${p.type} ${p.pid} holds a secret`);
  }
  // The children's title rewrite spills over their environ area; the browser's own is intact.
  const browser = procs.find((p) => p.type === 'browser')!;
  const names = browser.environ.split('\0').filter(Boolean).map((v) => v.split('=')[0]!);
  for (const n of names) assert.match(n, /^(PATH|PWD|HOME|TMPDIR|LANG|LANGUAGE|LC_[A-Z_]+|TZ|FONTCONFIG_FILE|FONTCONFIG_PATH)$/, `the browser has ${n}`);
});

/** The memory cgroup (v2 path, or v1's memory hierarchy) a process is in. */
function memoryGroup(pid: number): string {
  const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  const line = lines.find((l) => l.split(':')[1]?.split(',').includes('memory')) ?? lines.find((l) => l.startsWith('0::'))!;
  return line.split(':').slice(2).join(':');
}

test('as root, every process of the browser runs as a uid of its own, not 0, inside its memory group', { skip: !asRoot && 'the service is not root' }, async () => {
  const { key } = await s.createKey({ credits: 1000 });
  await renderedScrape(s, key);
  const procs = chromiumProcesses();
  const browser = procs.find((p) => p.type === 'browser')!;
  assert.notEqual(browser.uid, 0);
  const group = memoryGroup(browser.pid);
  assert.notEqual(group, memoryGroup(process.pid), 'the browser has a memory group of its own');
  for (const p of procs) {
    assert.equal(p.uid, browser.uid, `${p.type} ${p.pid} runs as the browser's uid`);
    assert.equal(memoryGroup(p.pid), group, `${p.type} ${p.pid} is in the browser's memory group`);
  }
});

test('a page that allocates past BROWSER_MEMORY_MB fails its call (502, free); the next call gets a fresh browser', { skip: !asRoot && 'no memory group without root' }, async () => {
  const { key } = await capped.createKey({ credits: 1000 });
  const credits = async () => (await capped.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  // The other server's browser may be running too: this server's is the one its first call started.
  const browsers = () => chromiumProcesses().filter((p) => p.type === 'browser').map((p) => p.pid);
  const others = browsers();
  await renderedScrape(capped, key);
  const first = browsers().filter((pid) => !others.includes(pid));
  assert.equal(first.length, 1);
  const before = await credits();
  const hog = await capped.call('POST', '/api/v1/scrape', { key, body: { url: `${base}/hog`, renderJs: true } });
  assert.equal(hog.status, 502, hog.text);
  // The renderer is killed while the page is still loading, and the browser with it: whichever
  // puppeteer sees first, the navigation's crash (render.ts) or the lost browser (index.ts), the
  // answer is the browser's 502 for that page.
  const failed = (why: string) => `Failed to retrieve ${base}/hog: the browser ${why} the page.`;
  assert.ok([failed('could not load'), failed('failed while rendering')].includes(hog.json.error), hog.json.error);
  assert.equal(await credits(), before);
  await renderedScrape(capped, key);
  assert.ok(await credits() < before, 'the next call is charged as usual');
  const now = browsers().filter((pid) => !others.includes(pid));
  assert.ok(now.length === 1 && now[0] !== first[0], `a fresh browser: ${first} then ${now}`);
});
