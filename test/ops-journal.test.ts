/**
 * Usage rows survive SIGKILL (issue 18 finding 9): a service process is killed with calls in
 * flight and rows not yet written; the next start on the same DATA_DIR recovers them from the
 * journal, and the usage log then matches the ledger.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMBEDDED_DB_TEMPLATE, request, startServer } from './helpers/server.js';
import { echoOnlyConfig } from './fixtures/test-plugins.js';

const ROOT = join(import.meta.dirname, '..');
const ADMIN = 'journal-admin';

/** The echo service in a child process (it is killed), on the suite's embedded database template. */
function spawnEcho(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', 'test/fixtures/echo-server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'error', DOCUMENTS_PREWARM: 'false', EMBEDDED_DB_TEMPLATE },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b) => {
      out += b.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.stderr!.on('data', (b) => (out += b.toString()));
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out.slice(-1000)}`)));
  });
}

describe('usage journal', () => {
  it('after SIGKILL, the next start writes the rows of answered calls and of calls cut off', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cia-journal-'));
    try {
      const { url, child } = await spawnEcho(dataDir);
      const created = await request(url + '/admin/keys', 'POST', { token: ADMIN, body: { name: 'j', credits: 1000 } });
      const key = created.json.key as string;
      const run = (text: string, delayMs = 0) => request(url + '/api/v2/run', 'POST', { token: key, body: { type: 'capability', id: 'test_echo', input: { text, delayMs } } });
      // Three answered calls; their rows sit in the usage log's buffer (written every 200 ms)...
      for (const t of ['a', 'b', 'c']) assert.equal((await run(t)).status, 200);
      // ...and one call still running when the process dies.
      const cut = run('slow', 10_000).then((r) => r.status, () => 'cut');
      await new Promise((r) => setTimeout(r, 150));
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      assert.equal(await cut, 'cut');
      assert.equal((await readdir(join(dataDir, 'usage-journal'))).length, 1, 'the dead process left its journal');

      const s = await startServer({ dataDir, serviceConfig: echoOnlyConfig() });
      try {
        const usage = await s.call('GET', '/api/v2/usage?objectType=capability&limit=50', { key });
        const rows = usage.json.data.items as { status: number; code: string | null; credits: number }[];
        const byStatus = rows.map((r) => [r.status, r.code, r.credits]).sort();
        assert.deepEqual(byStatus.filter(([st]) => st === 200), [[200, null, 10], [200, null, 10], [200, null, 10]]);
        const balance = (await s.call('GET', '/api/v2/balance', { key })).json.data;
        assert.deepEqual([balance.credits, balance.reserved], [970, 0]);
        const all = (await s.admin('GET', `/keys/${created.json.id}/usage?limit=50`)).json.items as { status: number; code: string | null; credits: number; objectId: string }[];
        const interrupted = all.filter((r) => r.code === 'INTERRUPTED');
        assert.equal(interrupted.length, 1, JSON.stringify(all));
        assert.deepEqual([interrupted[0]!.status, interrupted[0]!.credits, interrupted[0]!.objectId], [500, 0, '/api/v2/run']);
        // The usage log agrees with the ledger: 30 credits charged, 30 in the rows.
        assert.equal(all.reduce((n, r) => n + r.credits, 0), 30);
        assert.deepEqual(await readdir(join(dataDir, 'usage-journal')).then((f) => f.filter((n) => !n.includes(`.${process.pid}.`)).length), 0, 'the replayed journal is gone');
      } finally {
        await s.close({ keepData: true });
      }
      // A second start replays nothing twice, and the clean stop left no journal behind.
      assert.deepEqual(await readdir(join(dataDir, 'usage-journal')), []);
      const again = await startServer({ dataDir, serviceConfig: echoOnlyConfig() });
      try {
        const all = (await again.admin('GET', `/keys/${created.json.id}/usage?limit=50`)).json.items as { objectId: string; code: string | null }[];
        assert.equal(all.filter((r) => r.objectId === 'test_echo' || r.code === 'INTERRUPTED').length, 4, JSON.stringify(all));
      } finally {
        await again.close({ keepData: true });
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
