/** Graceful shutdown: requests in flight finish and are charged once; nothing is lost. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServer } from './helpers/server.js';
import { echoOnlyConfig } from './fixtures/test-plugins.js';

describe('graceful shutdown', () => {
  it('finishes a request in flight, persists its charge, then refuses new work', async () => {
    let s = await startServer({ serviceConfig: echoOnlyConfig() });
    const dataDir = s.dataDir;
    const { key } = await s.createKey({ credits: 100 });
    const slow = s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'test_echo', input: { text: 'slow', delayMs: 1200 } } });
    await new Promise((r) => setTimeout(r, 300));
    const url = s.url;
    const closing = s.close({ keepData: true });
    await new Promise((r) => setTimeout(r, 100));
    const late = await fetch(url + '/api/v2/balance', { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status, () => 'refused');
    assert.ok(late === 503 || late === 'refused', `late request got ${late}`);
    const done = await slow;
    assert.equal(done.status, 200);
    assert.equal(done.json.data.echo, 'slow');
    await closing;
    s = await startServer({ serviceConfig: echoOnlyConfig(), dataDir });
    try {
      const bal = await s.call('GET', '/api/v2/balance', { key });
      assert.equal(bal.json.data.credits, 90);
      const usage = await s.call('GET', '/api/v2/usage?objectId=test_echo', { key });
      assert.equal(usage.json.data.items.length, 1);
      assert.equal(usage.json.data.items[0].status, 200);
    } finally {
      await s.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
