/**
 * The operator's route alias table V1_ROUTE_ALIASES (issue 28) through the real server: an alias
 * serves its route (every method, same answer and price, usage rows naming the route's target),
 * is in the v1 OpenAPI document, and a table with an alias onto a path we do not serve or one
 * that shadows a route stops boot with the reason.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';

let dir: string;
let s: TestServer;
let key: string;
const serviceConfig = pluginsConfig(['doc_text', 'documents']);

async function table(name: string, aliases: Record<string, unknown>): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(aliases));
  return file;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aliases-test-'));
  const file = await table('aliases.json', { '/api/v1/pdf/to-text': '/api/v1/doc-to-text', '/api/v1/convert': '/api/v1/convert-to-pdf' });
  s = await startServer({ serviceConfig, env: { V1_ROUTE_ALIASES: file } });
  key = (await s.createKey({ credits: 1000 })).key;
});

after(async () => {
  await s?.close();
  await rm(dir, { recursive: true, force: true });
});

test('an alias answers what its route answers, at its price, with usage naming the target', async () => {
  const body = { inputMethod: 'base64', file: Buffer.from('Alias text').toString('base64'), fileExtension: 'txt', requestSource: 'client' };
  const real = await s.call('POST', '/api/v1/doc-to-text', { key, body });
  const alias = await s.call('POST', '/api/v1/pdf/to-text', { key, body });
  assert.equal(real.status, 200, real.text);
  assert.equal(alias.status, 200, alias.text);
  assert.deepEqual(alias.json, real.json);
  assert.equal(alias.headers['x-credits-charged'], real.headers['x-credits-charged']);
  assert.equal(alias.headers['x-credits-charged'], '20');
  const bad = await s.call('POST', '/api/v1/pdf/to-text', { key, body: {} });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.error, (await s.call('POST', '/api/v1/doc-to-text', { key, body: {} })).json.error);
  // Both methods of the route it copies.
  const formats = await s.call('GET', '/api/v1/convert', { key });
  assert.equal(formats.status, 200, formats.text);
  assert.deepEqual(formats.json, (await s.call('GET', '/api/v1/convert-to-pdf', { key })).json);
  const rows = (await s.call('GET', '/api/v2/usage?limit=20', { key })).json.data.items;
  const ids = rows.filter((r: any) => r.lane === 'v1').map((r: any) => `${r.objectType}:${r.objectId}`);
  assert.deepEqual([...new Set(ids)].sort(), ['capability:convert_to_pdf_formats', 'capability:doc_to_text']);
  assert.equal(rows.filter((r: any) => r.objectId === 'doc_to_text' && r.status === 200).length, 2);
});

test('aliases are in the v1 OpenAPI document', async () => {
  const doc = (await s.call('GET', '/openapi/v1.json')).json;
  const op = doc.paths['/api/v1/pdf/to-text']?.post;
  assert.ok(op, 'alias documented');
  assert.match(op.description, /alias of `\/api\/v1\/doc-to-text`/i);
  assert.ok(doc.paths['/api/v1/convert'].get && doc.paths['/api/v1/convert'].post);
  const ids = Object.values(doc.paths).flatMap((p: any) => Object.values(p).map((o: any) => o.operationId));
  assert.equal(new Set(ids).size, ids.length, 'operation ids stay unique');
});

test('a table with an unknown target or a shadowing alias stops boot with the reasons', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ '/api/v1/x': '/api/v1/no-such-route' }, /V1_ROUTE_ALIASES.*'\/api\/v1\/x' points to '\/api\/v1\/no-such-route', which this service does not serve/],
    [{ '/api/v1/scrape': '/api/v1/doc-to-text' }, /'\/api\/v1\/scrape' shadows a route the service serves itself/],
    [{ '/other/path': '/api/v1/doc-to-text', '/api/v1/ok': 3 }, /'\/other\/path' is not a plain \/api\/v1\/… path.*'\/api\/v1\/ok' must map to a route path string/],
  ];
  for (const [aliases, reason] of cases) {
    const file = await table(`bad-${Math.random()}.json`, aliases);
    await assert.rejects(startServer({ serviceConfig, env: { V1_ROUTE_ALIASES: file } }), reason);
  }
  await assert.rejects(startServer({ serviceConfig, env: { V1_ROUTE_ALIASES: join(dir, 'missing.json') } }), /V1_ROUTE_ALIASES: cannot read/);
});
