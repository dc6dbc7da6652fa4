/**
 * The admin CLI works on the configured store and the server then accepts the key it made. Most
 * commands run in this process (`runCli`, the CLI's whole behaviour but the process shim); a few
 * run as real processes, for the exit code and the streams a user sees, once against PostgreSQL.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { EMBEDDED_DB_TEMPLATE, seededDataDir, startServer, type TestServer } from './helpers/server.js';
import { postgresBackend } from './helpers/storage.js';
import { cliInProcess as cliWith, cliProcess } from './helpers/admin-cli.js';
import { echoOnlyConfig } from './fixtures/test-plugins.js';

// A fresh DATA_DIR copies the suite's embedded database template, as the test servers' do (the
// first test's; the later ones start on a copy already in place: seededDataDir).
const cli = (dataDir: string, ...args: string[]) => cliWith({ DATA_DIR: dataDir, EMBEDDED_DB_TEMPLATE }, ...args);

describe('admin CLI', () => {
  it('creates a key, adds credits with a reason, and the server honours both', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cia-cli-'));
    try {
      const created = JSON.parse((await cli(dataDir, 'keys', 'create', '--name', 'cli', '--credits', '40', '--rate', '5')).stdout);
      assert.match(created.key, /^cia_/);
      assert.equal(created.credits, 40);
      const topped = JSON.parse((await cli(dataDir, 'credits', 'add', created.id, '60', '--reason', 'invoice 7')).stdout);
      assert.equal(topped.credits, 100);
      const bad = await cli(dataDir, 'credits', 'add', created.id, '--reason', 'x', '--', '-500').then(() => null, (e) => e);
      assert.match(bad.stderr, /Deduction larger than the spendable balance/);
      const s = await startServer({ dataDir });
      try {
        const bal = await s.call('GET', '/api/v2/balance', { key: created.key });
        assert.equal(bal.status, 200);
        assert.equal(bal.json.data.credits, 100);
        assert.equal(bal.headers['x-ratelimit-limit'], '5');
        const tx = await s.call('GET', '/api/v2/transactions', { key: created.key });
        assert.equal(tx.json.data.items[0].reason, 'invoice 7');
      } finally {
        await s.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  // One server process holds the store for the next three tests, as a deployment's one instance
  // would; the third stops it and finds on DATA_DIR what the first two did through it.
  describe('while a server process holds the embedded store', () => {
    let dataDir: string;
    let s: TestServer;
    let created: { id: string; key: string };
    let kept: URL;
    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'cia-cli-'));
      s = await startServer({ dataDir, processMode: true });
    });
    after(async () => {
      await s?.close();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('commands go through its admin API; a second server is refused', async () => {
      // Without the admin token the CLI refuses instead of opening the store behind the server's back.
      const refused = await cli(dataDir, 'keys', 'list').then(() => null, (e) => e);
      assert.match(refused.stderr, /is in use by process \d+ \(serving http:\/\/127\.0\.0\.1:\d+\).*set ADMIN_TOKEN/);
      const withToken = { DATA_DIR: dataDir, ADMIN_TOKEN: s.adminToken };
      created = JSON.parse((await cliWith(withToken, 'keys', 'create', '--name', 'live', '--credits', '30')).stdout);
      assert.match(created.key, /^cia_/);
      await cliWith(withToken, 'credits', 'add', created.id, '20', '--reason', 'while running');
      // The running server sees the credits at once: they went through it, not around it.
      const bal = await s.call('GET', '/api/v2/balance', { key: created.key });
      assert.equal(bal.json.data.credits, 50);
      const listed = JSON.parse((await cliWith(withToken, 'keys', 'list')).stdout);
      assert.deepEqual(listed.map((k: { id: string }) => k.id), [created.id]);
      const tx = JSON.parse((await cliWith(withToken, 'transactions', created.id)).stdout);
      assert.equal(tx[0].reason, 'while running');
      const denied = await cliWith({ ...withToken, ADMIN_TOKEN: 'wrong' }, 'keys', 'list').then(() => null, (e) => e);
      assert.ok(denied, 'a wrong admin token fails');
      // A second server on the same DATA_DIR does not start.
      await assert.rejects(startServer({ dataDir }), /is in use by process/);
    });

    it('files delete removes a produced file through it', async () => {
      const pdf = async () => {
        const doc = await PDFDocument.create();
        doc.addPage([200, 200]);
        return Buffer.from(await doc.save()).toString('base64');
      };
      const { key } = await s.createKey({ credits: 1000 });
      const produce = async () => {
        const merged = await s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'base64', files: [await pdf(), await pdf()] } });
        assert.equal(merged.status, 200, merged.text);
        return new URL(merged.json.url);
      };
      const [gone, later] = [await produce(), await produce()];
      kept = later;
      const idOf = (link: URL) => link.pathname.split('/').pop()!;
      const withToken = { DATA_DIR: dataDir, ADMIN_TOKEN: s.adminToken };
      // Real processes: the answer on stdout, then the refusal's exit code and its one line on stderr.
      const deleted = JSON.parse((await cliProcess(withToken, 'files', 'delete', idOf(gone))).stdout);
      assert.deepEqual(deleted, { id: idOf(gone), deleted: true });
      assert.equal((await fetch(`${s.url}${gone.pathname}${gone.search}`)).status, 404);
      assert.equal((await fetch(`${s.url}${later.pathname}${later.search}`)).status, 200, 'only the named file went');
      const again = await cliProcess(withToken, 'files', 'delete', idOf(gone)).then(() => null, (e) => e);
      assert.equal(again?.code, 1);
      assert.equal(again.stderr, `error: File not found: ${idOf(gone)}\n`);
    });

    it('once it has stopped, the CLI opens the store itself: the keys made through it, and files delete on DATA_DIR', async () => {
      await s.close({ keepData: true });
      const after = JSON.parse((await cli(dataDir, 'keys', 'list')).stdout);
      assert.equal(after.find((k: { id: string }) => k.id === created.id)?.credits, 50);
      // With no server holding the store, the CLI deletes from DATA_DIR itself, with the same answers.
      const id = kept.pathname.split('/').pop()!;
      assert.deepEqual(JSON.parse((await cli(dataDir, 'files', 'delete', id)).stdout), { id, deleted: true });
      const missing = await cli(dataDir, 'files', 'delete', id).then(() => null, (e) => e);
      assert.equal(missing?.stderr, `error: File not found: ${id}\n`);
      const restarted = await startServer({ dataDir });
      try {
        assert.equal((await fetch(`${restarted.url}${kept.pathname}${kept.search}`)).status, 404, 'the restarted server no longer serves it');
      } finally {
        await restarted.close();
      }
    });
  });

  it('rotates a key, searches keys and prints usage stats', async () => {
    const dataDir = await seededDataDir('cia-cli-');
    try {
      const created = JSON.parse((await cli(dataDir, 'keys', 'create', '--name', 'Rotor', '--credits', '5')).stdout);
      await cli(dataDir, 'keys', 'create', '--name', 'Other');
      const found = JSON.parse((await cli(dataDir, 'keys', 'list', '--search', 'roT')).stdout);
      assert.deepEqual(found.map((k: { name: string }) => k.name), ['Rotor']);
      const rotated = JSON.parse((await cli(dataDir, 'keys', 'rotate', created.id)).stdout);
      assert.match(rotated.key, /^cia_/);
      assert.notEqual(rotated.key, created.key);
      const stats = JSON.parse((await cli(dataDir, 'stats', '--bucket', 'day', '--from', '2026-01-01T00:00:00Z', '--to', '2026-01-03T00:00:00Z', '--group-by', 'lane')).stdout);
      assert.deepEqual(stats.buckets.map((b: { start: string; calls: number }) => [b.start, b.calls]), [['2026-01-01T00:00:00.000Z', 0], ['2026-01-02T00:00:00.000Z', 0]]);
      const bad = await cli(dataDir, 'stats', '--bucket', 'week').then(() => null, (e) => e);
      assert.match(bad.stderr, /'bucket' must be hour or day/);
      const s = await startServer({ dataDir });
      try {
        assert.equal((await s.call('GET', '/api/v2/balance', { key: created.key })).status, 401);
        assert.equal((await s.call('GET', '/api/v2/balance', { key: rotated.key })).status, 200);
      } finally {
        await s.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('a lock left by a process that died is taken over', async () => {
    const dataDir = await seededDataDir('cia-cli-');
    try {
      const dead = spawnSync('/bin/true').pid!;
      await writeFile(join(dataDir, 'db.lock'), JSON.stringify({ pid: dead, url: 'http://127.0.0.1:1' }));
      const listed = JSON.parse((await cli(dataDir, 'keys', 'list')).stdout);
      assert.deepEqual(listed, []);
      assert.equal(existsSync(join(dataDir, 'db.lock')), false, 'released after the command');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('on PostgreSQL: works beside a running server, deducts with a reason and filters usage', async () => {
    const backend = await postgresBackend();
    const s = await startServer({ env: backend.env, serviceConfig: echoOnlyConfig() });
    const pg = { DATABASE_URL: backend.env.DATABASE_URL! };
    try {
      // A real process on the shared database beside the running server.
      const created = JSON.parse((await cliProcess(pg, 'keys', 'create', '--name', 'pg', '--credits', '100')).stdout);
      const run = (text: string) => s.call('POST', '/api/v2/run', { key: created.key, body: { type: 'capability', id: 'test_echo', input: { text } } });
      assert.equal((await run('one')).status, 200);
      assert.equal((await s.call('POST', '/api/v2/run', { key: created.key, body: { type: 'capability', id: 'nope', input: {} } })).status, 404);
      const after = JSON.parse((await cliWith(pg, 'credits', 'deduct', created.id, '30', '--reason', 'refund reversed')).stdout);
      assert.equal(after.credits, 60);
      // The server sees the deduction at once: both work on the one shared database.
      assert.equal((await s.call('GET', '/api/v2/balance', { key: created.key })).json.data.credits, 60);
      const tx = JSON.parse((await cliWith(pg, 'transactions', created.id)).stdout);
      assert.deepEqual([tx[0].kind, tx[0].amount, tx[0].reason], ['deduct', -30, 'refund reversed']);
      const tooMuch = await cliWith(pg, 'credits', 'deduct', created.id, '61', '--reason', 'x').then(() => null, (e) => e);
      assert.match(tooMuch.stderr, /Deduction larger than the spendable balance/);
      let rows: { objectId: string; status: number }[] = [];
      for (let i = 0; i < 50 && rows.length === 0; i++) {
        rows = JSON.parse((await cliWith(pg, 'usage', created.id, '--object-id', 'test_echo', '--status', '200')).stdout);
        if (rows.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(rows.map((r) => [r.objectId, r.status]), [['test_echo', 200]]);
      const errors = JSON.parse((await cliWith(pg, 'usage', created.id, '--status', 'error', '--object-type', 'capability')).stdout);
      assert.deepEqual(errors.map((r: { objectId: string; status: number }) => [r.objectId, r.status]), [['nope', 404]]);
    } finally {
      await s.close();
      await backend.dispose();
    }
  });
});
