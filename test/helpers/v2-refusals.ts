/**
 * The malformed-body tables of the v2 routes (issue 29: their bodies are route schemas): each
 * case names the body, the 400 text the route has always answered and the field it names.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

/** `[name, body (or raw text), the 400 text, the field named in details]`. */
export type RefusalCase = [string, { body?: unknown; raw?: string }, string, string | undefined];

/**
 * One test per case: POST `path` with the case's body answers 400 `INVALID_INPUT` with its text,
 * its field, the failure envelope and a request id. `server` is read when the test runs (after `before`).
 */
export function itRefuses(server: () => { s: TestServer; key: string }, path: string, cases: RefusalCase[], label = ''): void {
  for (const [name, req, error, field] of cases) {
    it(`${label}400 for ${name}`, async () => {
      const { s, key } = server();
      const r = await s.call('POST', path, { key, ...(req.raw !== undefined ? { rawBody: req.raw } : { body: req.body }) });
      assert.equal(r.status, 400);
      assert.equal(r.json.success, false);
      assert.equal(r.json.code, 'INVALID_INPUT');
      assert.equal(r.json.error, error);
      assert.deepEqual(r.json.details, field === undefined ? undefined : { field });
      assert.match(r.json.requestId, /^req_/);
    });
  }
}
