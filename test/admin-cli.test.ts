/** The admin CLI works on the configured store and the server then accepts the key it made. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './helpers/server.js';

const exec = promisify(execFile);
const cli = (dataDir: string, ...args: string[]) =>
  exec(process.execPath, ['--no-node-snapshot', '--import', 'tsx', 'server/admin/cli.ts', ...args], {
    cwd: join(import.meta.dirname, '..'),
    env: { PATH: process.env.PATH, DATA_DIR: dataDir },
  });

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
});
