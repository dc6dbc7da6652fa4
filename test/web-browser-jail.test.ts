/**
 * Issue 24 for the browser, through the real server: every process of the warm Chromium (the
 * browser, its zygotes, renderers and utility processes) runs with an environment of its own,
 * never the service's secrets. The service's secrets are put where a deployment keeps them, the
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

before(async () => {
  Object.assign(process.env, SECRETS);
  site = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Jail</title><p>Rendered by a confined browser</p><script>document.title = "Jail done"</script>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  s = await startServer({ serviceConfig: pluginsConfig(['web']), env: { MODEL_API_KEY: PROVIDER_KEY, SEARCH_A_API_KEY: PROVIDER_KEY, ALLOW_PRIVATE_NETWORK: 'true', BROWSER_MAX_PAGES: '1' } });
});
after(async () => {
  await s?.close();
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
  for (const n of names) assert.match(n, /^(PATH|HOME|TMPDIR|LANG|LANGUAGE|LC_[A-Z_]+|TZ|FONTCONFIG_FILE|FONTCONFIG_PATH)$/, `the browser has ${n}`);
});
