/**
 * Admin API with control characters (issue 18 finding 5): NUL cannot be stored in PostgreSQL text,
 * so names, reasons, policy ids, key ids and usage filters with one are 400s (or 404 for an id
 * that cannot exist), never a 500; and nothing was written.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';

describe('admin API and control characters', () => {
  let s: TestServer;
  let id: string;
  before(async () => {
    s = await startServer();
    ({ id } = await s.createKey({ credits: 10, name: 'ops' }));
  });
  after(() => s.close());

  const cases: [string, string, unknown, number, RegExp][] = [
    ['POST', '/keys', { name: 'a\u0000b' }, 400, /'name' must not contain control characters/],
    ['POST', '/keys', { name: 'tab\there' }, 400, /'name' must not contain control characters/],
    ['POST', '/keys', { name: 'ok', policy: { allow: ['search_a\u0000'] } }, 400, /policy ids must not contain control characters/],
    ['GET', '/keys/a%00b', undefined, 404, /not found/],
    ['GET', '/keys/a%00b/usage', undefined, 404, /not found/],
    ['GET', '/keys/a%00b/transactions', undefined, 404, /not found/],
    ['PATCH', '/keys/a%00b', { active: true }, 404, /not found/],
    ['POST', '/keys/a%00b/credits', { amount: 5, reason: 'r' }, 404, /not found/],
  ];
  for (const [method, path, body, status, text] of cases) {
    it(`${method} ${path} ${body ? JSON.stringify(body) : ''} → ${status}`, async () => {
      const res = await s.admin(method, path, body);
      assert.equal(res.status, status, res.text);
      assert.match(res.json.error, text);
    });
  }

  it('a key id, usage filter, name or reason with NUL on a real key: 400s, and the key is unchanged', async () => {
    const patch = await s.admin('PATCH', `/keys/${id}`, { name: 'x\u0000' });
    assert.equal(patch.status, 400, patch.text);
    const credit = await s.admin('POST', `/keys/${id}/credits`, { amount: 5, reason: 'r\u0000' });
    assert.equal(credit.status, 400, credit.text);
    assert.match(credit.json.error, /'reason' must not contain control characters/);
    for (const q of ['objectId=%00', 'provider=a%00b', 'objectType=%00']) {
      const usage = await s.admin('GET', `/keys/${id}/usage?${q}`);
      assert.equal(usage.status, 400, `${q}: ${usage.text}`);
    }
    // A reason may still span lines.
    const multi = await s.admin('POST', `/keys/${id}/credits`, { amount: 5, reason: 'invoice 42\nsecond line' });
    assert.equal(multi.status, 200, multi.text);
    const key = await s.admin('GET', `/keys/${id}`);
    assert.deepEqual([key.json.name, key.json.credits], ['ops', 15]);
    const tx = await s.admin('GET', `/keys/${id}/transactions`);
    assert.equal(tx.status, 200);
    assert.ok(tx.json.items.some((t: { reason?: string }) => JSON.stringify(t).includes('second line')), tx.text);
  });
});
