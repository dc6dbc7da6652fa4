/**
 * Webhook signing secrets (issue 25) through the real server, on both stores: one per key, read
 * and rotated by the key holder (v2 envelope) and by the admin API, never shared between keys.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { BACKENDS, type Backend } from './helpers/storage.js';
import { testServiceConfig } from './fixtures/test-plugins.js';

const SECRET = /^whsec_[A-Za-z0-9+/]+=*$/;

for (const backend of BACKENDS) {
  describe(`webhook secret (${backend.name})`, () => {
    let b: Backend;
    let s: TestServer;
    let a: { id: string; key: string };
    let other: { id: string; key: string };

    before(async () => {
      b = await backend.make();
      s = await startServer({ env: b.env, serviceConfig: testServiceConfig() });
      a = await s.createKey({ name: 'a' });
      other = await s.createKey({ name: 'b' });
    });
    after(async () => {
      await s?.close();
      await b?.dispose();
    });

    const read = async (key: string) => {
      const r = await s.call('GET', '/api/v2/webhook-secret', { key });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.object, 'webhook_secret');
      return r.json.data.secret as string;
    };

    it('is created on first read, stable afterwards, and different for each key', async () => {
      const first = await read(a.key);
      assert.match(first, SECRET);
      assert.equal(await read(a.key), first);
      const theirs = await read(other.key);
      assert.match(theirs, SECRET);
      assert.notEqual(theirs, first);
      const admin = await s.admin('GET', `/keys/${a.id}/webhook-secret`);
      assert.equal(admin.status, 200);
      assert.equal(admin.json.keyId, a.id);
      assert.equal(admin.json.secret, first);
    });

    it('rotates for the key holder and for the admin, each seeing the other\'s new secret', async () => {
      const before = await read(a.key);
      const theirs = await read(other.key);
      const rotated = await s.call('POST', '/api/v2/webhook-secret', { key: a.key });
      assert.equal(rotated.status, 200, rotated.text);
      assert.match(rotated.json.data.secret, SECRET);
      assert.notEqual(rotated.json.data.secret, before);
      assert.equal(await read(a.key), rotated.json.data.secret);
      assert.equal((await s.admin('GET', `/keys/${a.id}/webhook-secret`)).json.secret, rotated.json.data.secret);

      const byAdmin = await s.admin('POST', `/keys/${a.id}/webhook-secret`);
      assert.equal(byAdmin.status, 200);
      assert.notEqual(byAdmin.json.secret, rotated.json.data.secret);
      assert.equal(await read(a.key), byAdmin.json.secret);
      assert.equal(await read(other.key), theirs, 'another key keeps its secret');
    });

    it('answers 404 for an unknown key (admin) and 401 without a key', async () => {
      for (const method of ['GET', 'POST']) {
        const r = await s.admin(method, '/keys/key_nope/webhook-secret');
        assert.equal(r.status, 404);
        assert.equal(r.json.code, 'NOT_FOUND');
      }
      const anon = await s.call('GET', '/api/v2/webhook-secret');
      assert.equal(anon.status, 401);
      assert.equal(anon.json.success, false);
    });
  });
}
