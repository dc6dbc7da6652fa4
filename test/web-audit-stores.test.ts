/**
 * Audit of issue 27, findings 2, 3 and 4, through the real server on both stores (embedded,
 * PostgreSQL): a cached answer whose file links are about to stop working is fetched again rather
 * than served; a cached answer made from a scanned PDF costs its OCR pages on every hit, as the
 * miss did; a snapshot past the retention is deleted by change tracking alone (no cache write);
 * deleting a monitor deletes its snapshot. The embedded database is read with the server
 * stopped (one process owns it); the next call starts it again, so looks in a row share one stop.
 * PostgreSQL is read beside the running server.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { textPdf } from './fixtures/extract/make.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { until } from './helpers/until.js';
import { closeLoopback, serveLoopback } from './helpers/loopback.js';

/** A PDF of blank pages: no text layer, so doc_text reads each page by OCR. */
const scanned = (pages: number) => Buffer.from(textPdf(Array.from({ length: pages }, () => '')).toString('latin1').replaceAll('/MediaBox [0 0 612 300]', '/MediaBox [0 0 144 72]'), 'latin1');

let site: http.Server;
let base = '';
before(async () => {
  ({ server: site, base } = await serveLoopback((req, res) => {
    const u = new URL(req.url!, 'http://x');
    if (u.pathname === '/scan.pdf') return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(scanned(3));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<title>Page</title><p>Page ${u.pathname}</p>`);
  }));
});
after(() => {
  closeLoopback(site);
});

const ENV = { ALLOW_PRIVATE_NETWORK: 'true', BROWSER_MAX_PAGES: '1', OFFICE_POOL_SIZE: '1', MONITOR_MIN_INTERVAL_MS: '1000', MONITOR_POLL_MS: '150' };

for (const make of BACKENDS) {
  describe(`cache entries and snapshots (${make.name})`, () => {
    let backend: Backend;
    let dir = '';
    /** The running server; undefined while it is stopped for a look at the embedded database. */
    let s: TestServer | undefined;
    let keyId = '';
    let key = '';
    let extraEnv: Record<string, string> = {};
    /** The server, started if a look at the tables (or a change of settings) stopped it. */
    const up = async (): Promise<TestServer> => {
      s ??= await startServer({ dataDir: dir, serviceConfig: pluginsConfig(['web', 'doc_text']), env: { ...ENV, ...backend.env, ...extraEnv } });
      return s;
    };
    const stop = async () => {
      await s?.close({ keepData: true });
      s = undefined;
    };
    /** Runs `query` on the service's database; an embedded one is owned by its server, which is stopped until the next call. */
    const sql = async (query: string, params: unknown[] = []): Promise<Record<string, unknown>[]> => {
      if (backend.env.DATABASE_URL) {
        const c = new pg.Client({ connectionString: backend.env.DATABASE_URL });
        await c.connect();
        try {
          return (await c.query(query, params)).rows;
        } finally {
          await c.end();
        }
      }
      await stop();
      const db = new PGlite(join(dir, 'db'));
      try {
        return (await db.query<Record<string, unknown>>(query, params)).rows;
      } finally {
        await db.close();
      }
    };
    const run = async (input: Record<string, unknown>) => (await up()).call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input } });
    const credits = async () => (await (await up()).call('GET', '/api/v2/balance', { key })).json.data.credits as number;
    const snapshots = async (where: string, params: unknown[]) => Number((await sql(`SELECT count(*) AS n FROM page_snapshots WHERE ${where}`, params))[0]!.n);

    before(async () => {
      backend = await make.make();
      dir = await mkdtemp(join(tmpdir(), 'web-audit-stores-'));
      ({ id: keyId, key } = await (await up()).createKey({ credits: 10_000 }));
    });
    after(async () => {
      await s?.close();
      await backend?.dispose();
      await rm(dir, { recursive: true, force: true });
    });

    it('a cached answer made from a scanned PDF costs its OCR pages on a hit, as on the miss', async () => {
      const input = { url: `${base}/scan.pdf`, renderJs: false, maxAge: 600_000 };
      let before = await credits();
      const miss = await run(input);
      assert.equal(miss.status, 200, miss.text);
      assert.equal(miss.json.data.metadata.cacheState, 'miss');
      const missCost = before - (await credits());
      assert.equal(missCost, 10 + 3 * 5, 'the miss: the scrape and 3 OCR pages');
      before = await credits();
      const hit = await run(input);
      assert.equal(hit.json.data.metadata.cacheState, 'hit');
      assert.equal(before - (await credits()), missCost, 'a cached answer costs the same');
    });

    it('change tracking alone deletes snapshots past the retention', async () => {
      const track = (path: string) => run({ url: `${base}${path}`, renderJs: false, formats: ['changeTracking'] });
      assert.equal((await track('/old')).json.data.changeTracking.changeStatus, 'new');
      assert.equal(await snapshots('key_id = $1 AND url = $2', [keyId, `${base}/old`]), 1);
      await sql(`UPDATE page_snapshots SET taken_at = now() - interval '91 days' WHERE key_id = $1 AND url = $2`, [keyId, `${base}/old`]);
      // A server process prunes at most once a minute, and this one already has: the snapshot
      // below is a fresh server's first (an embedded one is stopped already, for the look above).
      await stop();
      assert.equal((await track('/other')).status, 200);
      assert.equal(await snapshots('key_id = $1 AND url = $2', [keyId, `${base}/old`]), 0, 'the 91-day-old snapshot is gone');
      assert.equal(await snapshots('key_id = $1 AND url = $2', [keyId, `${base}/other`]), 1);
    });

    it("deleting a monitor deletes its snapshot", async () => {
      const created = await (await up()).call('POST', '/api/v2/monitors', { key, body: { url: `${base}/watched`, interval: 300_000, options: { renderJs: false } } });
      assert.equal(created.status, 201, created.text);
      const id = created.json.data.id as string;
      await until(async () => ((await (await up()).call('GET', `/api/v2/monitors/${id}`, { key })).json.data.lastRun?.changeStatus === 'new' ? true : undefined), 'the baseline run', 30_000);
      assert.equal(await snapshots('key_id = $1 AND tag = $2', [keyId, `monitor:${id}`]), 1);
      assert.equal((await (await up()).call('DELETE', `/api/v2/monitors/${id}`, { key })).status, 200);
      assert.equal(await snapshots('key_id = $1 AND tag = $2', [keyId, `monitor:${id}`]), 0);
    });

    it('a cached answer whose file links expire within a minute is a miss with fresh links; one with lasting links is a hit', async () => {
      const input = { url: `${base}/shot`, formats: ['screenshot'], maxAge: 600_000 };
      const miss = await run(input);
      assert.equal(miss.status, 200, miss.text);
      assert.equal(miss.json.data.metadata.cacheState, 'miss');
      const hit = await run(input);
      assert.equal(hit.json.data.metadata.cacheState, 'hit');
      assert.equal(hit.json.data.screenshot, miss.json.data.screenshot);
      assert.equal((await fetch(hit.json.data.screenshot)).status, 200);
      // Links that live 3 s: never worth serving from the cache. (The last test: its server keeps
      // this setting to the end, no restart back.)
      extraEnv = { FILES_MAX_RETENTION_MS: '3000' };
      await stop();
      for (const legacy of [false, true]) {
        const short = legacy ? { url: `${base}/short-v1`, format: 'screenshot', maxAge: 600_000 } : { url: `${base}/short`, formats: ['screenshot'], maxAge: 600_000 };
        const first = await run(short);
        assert.equal(first.status, 200, first.text);
        const again = await run(short);
        assert.equal(again.status, 200, again.text);
        assert.equal(again.json.data.metadata.cacheState, 'miss', 'links about to expire are not served from the cache');
        const link = legacy ? again.json.data.content : again.json.data.screenshot;
        assert.notEqual(link, legacy ? first.json.data.content : first.json.data.screenshot);
        assert.equal((await fetch(link)).status, 200);
        if (legacy) assert.ok(Date.parse(again.json.data.metadata.expiresAt) > Date.now());
      }
    });
  });
}
