/**
 * Change tracking across a page's outage and removal (issue 27), through the real server: a
 * server error or a 429 is a free 502 that keeps the last snapshot (so the page back reads `same`,
 * not `changed` twice), and a page that stays gone reads `same` after its removal, with the last
 * check as previousScrapeAt, until it is back (`new`).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { closeLoopback, serveLoopback } from './helpers/loopback.js';

const page = { status: 200, text: 'Version one.' };
let site: http.Server;
let url = '';

before(async () => {
  let base: string;
  ({ server: site, base } = await serveLoopback((_req, res) => {
    res.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>Tracked</title><p>${page.text}</p>`);
  }));
  url = `${base}/tracked`;
});
after(() => {
  closeLoopback(site);
});

describe('change tracking: an outage and a removal', () => {
  let s: TestServer;
  let key = '';
  const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  /** One change-tracking scrape: its status, error, changeTracking and what it cost. */
  const track = async () => {
    const was = await credits();
    const res = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input: { url, renderJs: false, formats: ['changeTracking'] } } });
    return { status: res.status, error: res.json.error as string | undefined, ct: res.json.data?.changeTracking, cost: was - (await credits()) };
  };

  before(async () => {
    s = await startServer({ serviceConfig: pluginsConfig(['web']), env: { ALLOW_HOSTS: '127.0.0.1' } });
    key = (await s.createKey({ credits: 1000 })).key;
  });
  after(() => s?.close());

  it('a 503, a 429 or a 500 is a free 502 that keeps the snapshot: the page back is the same', async () => {
    assert.equal((await track()).ct.changeStatus, 'new');
    for (const [status, text] of [[503, 'Service Unavailable'], [429, 'Slow down'], [500, 'Version one.']] as const) {
      Object.assign(page, { status, text });
      const failed = await track();
      assert.deepEqual([failed.status, failed.error, failed.cost], [502, `Failed to track changes of ${url}: the page answered ${status}; the last snapshot is kept.`, 0]);
    }
    Object.assign(page, { status: 200, text: 'Version one.' });
    const back = await track();
    assert.equal(back.status, 200, back.error);
    assert.equal(back.ct.changeStatus, 'same');
    assert.equal(back.cost, 10);
  });

  it('a page still gone after its removal reads same, from the last check; its return reads new', async () => {
    page.status = 404;
    const removed = await track();
    assert.equal(removed.ct.changeStatus, 'removed');
    const still = await track();
    assert.equal(still.status, 200, still.error);
    assert.equal(still.ct.changeStatus, 'same');
    assert.ok(Date.parse(still.ct.previousScrapeAt) > Date.parse(removed.ct.previousScrapeAt), 'the removal was the last check');
    const again = await track();
    assert.equal(again.ct.changeStatus, 'same');
    assert.ok(Date.parse(again.ct.previousScrapeAt) >= Date.parse(still.ct.previousScrapeAt));
    Object.assign(page, { status: 200, text: 'Version two.' });
    const back = await track();
    assert.equal(back.ct.changeStatus, 'new');
    assert.equal(back.ct.diff, undefined, 'nothing to compare with');
    assert.ok(back.ct.previousScrapeAt, 'the last check that found it gone');
    assert.equal((await track()).ct.changeStatus, 'same');
  });
});
