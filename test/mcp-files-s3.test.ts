/**
 * The MCP lane's file contents (issue 17 §4) when produced files live in a bucket (issue 25): a
 * small image is read back from the store, not from a disk path, and still inlined.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileStore } from '../core/engines/files/index.js';
import { fakeS3Env, startFakeS3 } from '../core/testing/fake-s3.js';
import { fileContent } from '../server/mcp/files.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanup.reverse()) await c();
});

test('a small image in the bucket comes back as a resource link and inline', async () => {
  const fake = await startFakeS3();
  const dataDir = await mkdtemp(join(tmpdir(), 'mcp-s3-'));
  cleanup.push(() => fake.close(), () => rm(dataDir, { recursive: true, force: true }));
  const store = createFileStore({ dataDir, publicBaseUrl: () => 'http://127.0.0.1:9', env: { ...fakeS3Env(fake, 'mcp/'), FILES_SIGNING_SECRET: 'mcp-secret' }, log: { debug() {}, info() {}, warn() {}, error() {} } });
  cleanup.push(() => store.close());
  const f = await store.put(PNG, { contentType: 'image/png', extension: 'png' });
  const items = await fileContent(store, { screenshot: f.url });
  assert.deepEqual(items.map((i) => i.type), ['resource_link', 'image']);
  assert.equal((items[1] as { data: string }).data, PNG.toString('base64'));
  assert.ok(fake.requests.some((r) => r.method === 'GET' && r.key.startsWith('mcp/')), 'read from the bucket');
});
