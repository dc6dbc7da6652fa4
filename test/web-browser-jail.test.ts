/**
 * Issue 24 for the browser, through the real server: every process of the warm Chromium (the
 * browser, its zygotes, renderers and utility processes) runs with an environment of its own,
 * never the service's secrets, and, when the service is root, as a uid of its own inside a memory
 * group of BROWSER_MEMORY_MB; a page that allocates past it fails that call (502, free) and the
 * next call gets a fresh browser. The service's secrets are put where a deployment keeps them, the
 * process environment puppeteer used to hand on whole.
 * The browser also runs in a jail: a network namespace where nothing but the guard proxy's
 * forwarders listens (a process in it cannot connect to the service, the database or a local
 * site directly, while pages still load through the proxy), a mount view without the data
 * directory, and as root a CPU group bounded to BROWSER_CPU_PERCENT. Where no jail can be made
 * (BROWSER_BWRAP_BIN missing) pages still render, on the host's network.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { descendsFrom } from '../core/engines/processes.js';
import { serveLoopback } from './helpers/loopback.js';

const SECRET = `admin-${randomBytes(6).toString('hex')}`;
const PROVIDER_KEY = `model-${randomBytes(6).toString('hex')}`;
const SECRETS = { ADMIN_TOKEN: SECRET, MODEL_API_KEY: PROVIDER_KEY, SEARCH_A_API_KEY: PROVIDER_KEY };
const saved = { ...process.env };
let site: http.Server;
let base = '';
/**
 * A 512 MB browser, for every test but the unjailed one: the tests that look at the browser's
 * environment, uid, groups and jail see the same code run with any cap, and the hog test needs
 * this one.
 */
let s: TestServer;
const asRoot = process.getuid?.() === 0;
/** An unusual bound, so the group's quota is known to be this setting's. */
const CPU_PERCENT = 130;

before(async () => {
  Object.assign(process.env, SECRETS);
  ({ server: site, base } = await serveLoopback((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    // 64 MB chunks, each written so its pages are really taken, until well past the cap.
    if (req.url === '/hog') return res.end('<!doctype html><title>Hog</title><script>const kept = []; for (let i = 0; i < 64; i++) kept.push(new Uint8Array(64 << 20).fill(i + 1));</script><p>survived</p>');
    res.end('<!doctype html><title>Jail</title><p>Rendered by a confined browser</p><script>document.title = "Jail done"</script>');
  }));
  const env = { MODEL_API_KEY: PROVIDER_KEY, SEARCH_A_API_KEY: PROVIDER_KEY, ALLOW_PRIVATE_NETWORK: 'true', BROWSER_MAX_PAGES: '1', BROWSER_CPU_PERCENT: String(CPU_PERCENT) };
  s = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ...env, BROWSER_MEMORY_MB: '512', WEB_PAGE_TIMEOUT_MS: '20000' } });
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
  const { key } = await s.createKey({ credits: 1000 });
  const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  // This server is the only one with a browser yet (the unjailed one's starts later).
  const browsers = () => chromiumProcesses().filter((p) => p.type === 'browser').map((p) => p.pid);
  await renderedScrape(s, key);
  const first = browsers();
  assert.equal(first.length, 1);
  const before = await credits();
  const hog = await s.call('POST', '/api/v1/scrape', { key, body: { url: `${base}/hog`, renderJs: true } });
  assert.equal(hog.status, 502, hog.text);
  // The renderer is killed while the page is still loading, and the browser with it: whichever
  // puppeteer sees first, the navigation's crash (render.ts) or the lost browser (index.ts), the
  // answer is the browser's 502 for that page.
  const failed = (why: string) => `Failed to retrieve ${base}/hog: the browser ${why} the page.`;
  assert.ok([failed('could not load'), failed('failed while rendering')].includes(hog.json.error), hog.json.error);
  assert.equal(await credits(), before);
  await renderedScrape(s, key);
  assert.ok(await credits() < before, 'the next call is charged as usual');
  const now = browsers();
  assert.ok(now.length === 1 && now[0] !== first[0], `a fresh browser: ${first} then ${now}`);
});

/** The warm browser process this server's last call used: the one whose profile is below `root` of its command line, else the only one. */
function browserOf(before: number[]): number {
  const now = chromiumProcesses().filter((p) => p.type === 'browser' && !before.includes(p.pid));
  assert.equal(now.length, 1, `one new browser: ${now.map((p) => p.pid)}`);
  return now[0]!.pid;
}

/** Whether a process in the network namespace of `pid` can open a TCP connection to 127.0.0.1:`port`. */
function connectsFrom(pid: number, port: number): boolean {
  const r = spawnSync('/usr/bin/nsenter', [`--net=/proc/${pid}/ns/net`, '/bin/bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`], { timeout: 10_000 });
  return r.status === 0;
}

/** Listening TCP ports (IPv4 and IPv6) in the network namespace of `pid`. */
function listeningPorts(pid: number): number[] {
  const ports: number[] = [];
  for (const file of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/net/${file}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A') ports.push(parseInt(f[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

describe('the browser\'s jail', () => {
  let unjailed: TestServer;
  before(async () => {
    unjailed = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ALLOW_PRIVATE_NETWORK: 'true', BROWSER_MAX_PAGES: '1', BROWSER_BWRAP_BIN: '/nonexistent/bwrap' } });
  });
  after(async () => {
    await unjailed?.close();
  });

  test('a process in the browser\'s network reaches neither the service, nor a local site, nor the database; pages still load through the guard proxy', async () => {
    const { key } = await s.createKey({ credits: 1000 });
    await renderedScrape(s, key);
    const procs = chromiumProcesses();
    const browser = procs.find((p) => p.type === 'browser')!;
    const own = readlinkSync('/proc/self/ns/net');
    for (const p of procs) assert.notEqual(readlinkSync(`/proc/${p.pid}/ns/net`), own, `${p.type} ${p.pid} shares the service's network namespace`);
    // From inside its network: the service's own port, the site the page came from, PostgreSQL.
    const servicePort = Number(new URL(s.url).port);
    const sitePort = Number(new URL(base).port);
    assert.ok(connectsFrom(process.pid, servicePort), 'the probe itself works from the service\'s network');
    for (const port of [servicePort, sitePort, 5432, 6379]) assert.equal(connectsFrom(browser.pid, port), false, `port ${port} reachable from the browser's network`);
    // Nothing listens there but the exits' forwarders, and the page above came through them.
    for (const port of listeningPorts(browser.pid)) assert.ok(port >= 3128 && port < 3132, `port ${port} listens in the browser's network`);
    assert.ok(connectsFrom(browser.pid, 3128), 'the direct exit listens in the browser\'s network');
  });

  test('the browser\'s file system lacks the data directory and the host\'s /etc; its profile is there', async () => {
    const { key } = await s.createKey({ credits: 1000 });
    await renderedScrape(s, key);
    const procs = chromiumProcesses();
    const browser = procs.find((p) => p.type === 'browser')!;
    const root = `/proc/${browser.pid}/root`;
    const profile = readFileSync(`/proc/${browser.pid}/cmdline`, 'utf8').split('\0').find((a) => a.startsWith('--user-data-dir='))!.slice(16);
    assert.ok(existsSync(`${root}${profile}`), `its profile ${profile} is in its view`);
    assert.ok(existsSync(`${root}/usr/share/fonts`), 'fonts are in its view');
    for (const p of procs) {
      assert.equal(existsSync(`/proc/${p.pid}/root${s.dataDir}`), false, `${p.type} ${p.pid} sees the data directory`);
      for (const hostFile of ['/etc/passwd', '/etc/hostname', '/root', '/home']) assert.equal(existsSync(`/proc/${p.pid}/root${hostFile}`), false, `${p.type} ${p.pid} sees ${hostFile}`);
    }
  });

  test('as root, the browser\'s processes share a CPU group bounded to BROWSER_CPU_PERCENT', { skip: !asRoot && 'no cgroup without root' }, async () => {
    const { key } = await s.createKey({ credits: 1000 });
    await renderedScrape(s, key);
    const procs = chromiumProcesses();
    const quota = (pid: number): number => {
      const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
      const v1 = lines.find((l) => l.split(':')[1]?.split(',').includes('cpu'));
      if (v1) {
        const mount = ['cpu', 'cpu,cpuacct', 'cpuacct,cpu'].map((m) => `/sys/fs/cgroup/${m}`).find((m) => existsSync(m))!;
        return Number(readFileSync(`${mount}${v1.split(':').slice(2).join(':')}/cpu.cfs_quota_us`, 'utf8'));
      }
      const v2 = lines.find((l) => l.startsWith('0::'))!.slice(3);
      return Number(readFileSync(`/sys/fs/cgroup${v2}/cpu.max`, 'utf8').split(' ')[0]);
    };
    for (const p of procs) assert.equal(quota(p.pid), CPU_PERCENT * 1000, `${p.type} ${p.pid} has the browser's CPU bound`);
  });

  test('where no jail can be made (no bubblewrap), pages still render, on the host\'s network', async () => {
    const others = chromiumProcesses().filter((p) => p.type === 'browser').map((p) => p.pid);
    const { key } = await unjailed.createKey({ credits: 1000 });
    await renderedScrape(unjailed, key);
    const browser = browserOf(others);
    assert.equal(readlinkSync(`/proc/${browser}/ns/net`), readlinkSync('/proc/self/ns/net'));
  });
});
