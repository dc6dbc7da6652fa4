/**
 * Engine metrics of the sandboxes and the compute pool through the real server (issue 18
 * "Operations": engine queue depths, pool sizes, recycles and crashes for the sandboxes and
 * compute too): a JavaScript run, a Python run and a scrape of a page served by this test, then
 * what `/metrics` shows for `js`, `python` and `compute`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';

const ENGINES = ['js', 'python', 'compute'] as const;

/** The value of one sample line (exact labels), or undefined. */
function sample(text: string, line: string): number | undefined {
  const hit = text.split('\n').find((l) => l.startsWith(line + ' '));
  return hit === undefined ? undefined : Number(hit.slice(line.length + 1));
}

const PAGE = '<!doctype html><html><head><title>Metrics page</title></head><body><h1>Counted</h1><p>A page the compute pool parses.</p></body></html>';

describe('engine metrics of the sandboxes and the compute pool', () => {
  let s: TestServer;
  let site: http.Server;
  let base = '';
  let key = '';
  const scrape = async (): Promise<string> => {
    const m = await s.call('GET', '/metrics', { key: s.adminToken });
    assert.equal(m.status, 200);
    return m.text;
  };

  before(async () => {
    site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    s = await startServer({ serviceConfig: pluginsConfig(['code', 'web']), env: { ALLOW_PRIVATE_NETWORK: 'true', SANDBOX_JS_WORKERS: '1', SANDBOX_JS_RECYCLE_AFTER: '2', COMPUTE_WORKERS: '1' } });
    ({ key } = await s.createKey({ credits: 100_000, rateLimitPerMinute: 10_000 }));
  });
  after(async () => {
    await s?.close();
    await new Promise((r) => site?.close(r));
  });

  it('shows no sandbox gauges before a sandbox ran: reading the metrics starts no engine', async () => {
    const text = await scrape();
    for (const engine of ['js', 'python']) {
      assert.equal(sample(text, `cia_engine_pool_size{engine="${engine}"}`), undefined, `${engine} reported before it started`);
      assert.equal(sample(text, `cia_engine_jobs{engine="${engine}"}`), undefined);
    }
    // Still not started after the scrape: a second scrape shows none either.
    assert.equal(sample(await scrape(), 'cia_engine_pool_size{engine="js"}'), undefined);
  });

  it('counts the jobs, pool sizes, queues and replacements of js, python and compute after a run of each', async () => {
    const js = await s.call('POST', '/api/v1/run-js-code', { key, body: { code: 'console.log(6 * 7)' } });
    assert.equal(js.status, 200, js.text.slice(0, 500));
    assert.deepEqual(js.json.logs.stdout, ['42']);
    const py = await s.call('POST', '/api/v1/run-python-code', { key, body: { code: 'print(6 * 7)' } });
    assert.equal(py.status, 200, py.text.slice(0, 500));
    assert.deepEqual(py.json.logs.stdout, ['42']);
    const page = await s.call('POST', '/api/v1/scrape', { key, body: { url: `${base}/`, renderJs: false } });
    assert.equal(page.status, 200, page.text.slice(0, 500));
    assert.match(JSON.stringify(page.json), /Counted/);

    const text = await scrape();
    for (const engine of ENGINES) {
      assert.ok((sample(text, `cia_engine_jobs{engine="${engine}"}`) ?? 0) >= 1, `${engine} jobs counted:\n${text.split('\n').filter((l) => l.startsWith('cia_engine')).join('\n')}`);
      assert.equal(sample(text, `cia_engine_queue_depth{engine="${engine}"}`), 0, `${engine} queue`);
      assert.equal(sample(text, `cia_engine_active_jobs{engine="${engine}"}`), 0, `${engine} active`);
      assert.ok(sample(text, `cia_engine_pool_size{engine="${engine}"}`) !== undefined, `${engine} pool size`);
      assert.equal(sample(text, `cia_engine_crashes{engine="${engine}"}`), 0, `${engine} crashes`);
    }
    // The JavaScript pool keeps its one worker process; compute its one thread once a page was parsed.
    assert.equal(sample(text, 'cia_engine_pool_size{engine="js"}'), 1);
    assert.equal(sample(text, 'cia_engine_pool_size{engine="compute"}'), 1);
    assert.equal(sample(text, 'cia_engine_recycles{engine="js"}'), 0);
    assert.equal(sample(text, 'cia_engine_kills{engine="js"}'), 0);
    assert.equal(sample(text, 'cia_engine_restarts{engine="js"}'), 0);
    assert.equal(sample(text, 'cia_engine_restarts{engine="compute"}'), 0);
    // Python sandboxes serve one run each: none is ever restarted, so there is no restart series.
    assert.equal(sample(text, 'cia_engine_restarts{engine="python"}'), undefined);
    assert.match(text, /# TYPE cia_engine_crashes gauge/);
  });

  it('counts a JavaScript worker recycled after SANDBOX_JS_RECYCLE_AFTER runs as a recycle, not a crash, and replaces it', async () => {
    // The one worker served one run above; the second makes it due (SANDBOX_JS_RECYCLE_AFTER=2).
    const second = await s.call('POST', '/api/v1/run-js-code', { key, body: { code: 'console.log("second")' } });
    assert.equal(second.status, 200, second.text.slice(0, 500));
    let text = await scrape();
    assert.equal(sample(text, 'cia_engine_jobs{engine="js"}'), 2);
    assert.equal(sample(text, 'cia_engine_recycles{engine="js"}'), 1);
    assert.equal(sample(text, 'cia_engine_restarts{engine="js"}'), 1);
    assert.equal(sample(text, 'cia_engine_crashes{engine="js"}'), 0, 'a recycle is no crash');
    // The successor serves the next run.
    const third = await s.call('POST', '/api/v1/run-js-code', { key, body: { code: 'console.log("third")' } });
    assert.equal(third.status, 200, third.text.slice(0, 500));
    assert.deepEqual(third.json.logs.stdout, ['third']);
    text = await scrape();
    assert.equal(sample(text, 'cia_engine_jobs{engine="js"}'), 3);
    assert.equal(sample(text, 'cia_engine_pool_size{engine="js"}'), 1);
    assert.equal(sample(text, 'cia_engine_crashes{engine="js"}'), 0);
  });
});
