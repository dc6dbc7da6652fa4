/** The generated API descriptions cover every route the server registered. */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, request, type TestServer } from './helpers/server.js';
import { LEGACY_ROUTES } from '../server/v1/legacy-routes.js';

const toOpenApi = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}');

describe('OpenAPI', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(() => s?.close());

  it('documents every registered route in the v1 or v2 document', async () => {
    const v1 = (await request(s.url + '/openapi/v1.json', 'GET')).json;
    const v2 = (await request(s.url + '/openapi/v2.json', 'GET')).json;
    assert.equal(v1.info.version, '1.0.0');
    assert.equal(v1.openapi, '3.1.0');
    assert.equal(v2.components.securitySchemes.bearerAuth.scheme, 'bearer');
    const documented = new Set<string>();
    for (const doc of [v1, v2]) for (const [path, ops] of Object.entries(doc.paths)) for (const m of Object.keys(ops as object)) documented.add(`${m.toUpperCase()} ${path}`);
    const undocumented = s.routes
      .filter((r) => !r.url.startsWith('/docs/assets') && r.url !== '*' && !r.url.endsWith('/*'))
      .map((r) => `${r.method} ${toOpenApi(r.url).replace(/^\/openapi\/\{lane\}$/, '/openapi/{lane}.json')}`)
      .filter((r) => !documented.has(r));
    assert.deepEqual(undocumented, []);
    assert.ok(s.routes.length > 30);
    for (const row of LEGACY_ROUTES) assert.ok(v1.paths[row.path][row.method.toLowerCase()], row.path);
  });

  it('v1 bodies and errors come from the registry schemas', async () => {
    const v1 = (await request(s.url + '/openapi/v1.json', 'GET')).json;
    const scrape = v1.components.schemas.scrape_page_input;
    assert.deepEqual(scrape.required, ['url']);
    assert.equal(scrape.properties.requestSource.type, 'string');
    assert.ok(v1.paths['/api/v1/run-js-code'].post.responses['500'].content['application/json'].schema.$ref.endsWith('CodeError'));
    assert.equal(v1.paths['/api/v1/engine-locations'].get.parameters[0].in, 'query');
  });

  it('serves a browsable docs page with its assets', async () => {
    const page = await request(s.url + '/docs', 'GET');
    assert.equal(page.status, 200);
    assert.match(page.headers['content-type'], /text\/html/);
    assert.match(page.text, /openapi\/v2\.json/);
    const js = await fetch(s.url + '/docs/assets/swagger-ui-bundle.js');
    assert.equal(js.status, 200);
    assert.ok((await js.arrayBuffer()).byteLength > 100_000);
  });
});
