/**
 * DATA_DIR at boot (issue 28) through the real server: a folder that does not exist yet is
 * created and used; a path that is a file, or a folder that cannot be created, stops boot with
 * a message naming DATA_DIR (not `ENOENT … db.lock….tmp`).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './helpers/server.js';

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'data-dir-test-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

test('a DATA_DIR that does not exist yet is created, with its parents, and the service serves', async () => {
  const dir = join(root, 'not', 'there', 'yet');
  const s = await startServer({ dataDir: dir });
  try {
    const health = await s.call('GET', '/healthz');
    assert.equal(health.status, 200, health.text);
    const k = await s.createKey({ credits: 5 });
    assert.equal((await s.call('GET', '/api/v2/balance', { key: k.key })).json.data.credits, 5);
    assert.ok(existsSync(join(dir, 'db')));
  } finally {
    await s.close({ keepData: true });
  }
});

test('an unusable DATA_DIR stops boot with a message naming the variable', async () => {
  const file = join(root, 'a-file');
  await writeFile(file, 'x');
  await assert.rejects(startServer({ dataDir: file }), /^Error: DATA_DIR '.*a-file' is not a folder\. Set DATA_DIR to a folder/);
  await assert.rejects(startServer({ dataDir: join(file, 'below') }), /^Error: DATA_DIR '.*a-file\/below' cannot be created: ENOTDIR\. Set DATA_DIR/);
});
