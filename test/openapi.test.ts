/**
 * The generated API descriptions: every registered route is documented, every registry target's
 * schemas are referenced by the run description, every field and parameter is described, the
 * documents hold together (schemas compile, references resolve), and real answers of the server,
 * headers included, match what the documents say.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startServer, request, type TestServer, type TestResponse } from './helpers/server.js';
import { LEGACY_ROUTES } from '../server/legacy-routes.js';
import serviceConfig from '../plugins.config.js';
import type { PluginDef } from '../core/plugin/types.js';
import { endpointVisibility } from './helpers/visibility.js';
import { undocumentedFields } from '../core/registry/build.js';
import { startFake, type SearchAFake } from '../plugins/search_a/fake.js';

type Json = Record<string, any>;
const toOpenApi = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const plainJson = (x: unknown) => JSON.parse(JSON.stringify(x));

/** JSON Pointer of a location in a document, for `$ref`. */
const pointer = (...parts: string[]) => '#/' + parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Every operation of a document with where it is. */
function operations(doc: Json): { where: string; path: string; method: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, ops]) => METHODS.filter((m) => ops[m]).map((m) => ({ where: `${m.toUpperCase()} ${path}`, path, method: m, op: ops[m] })));
}

/** Every schema root of a document (components, bodies, responses, parameters, headers): where it is and its JSON Pointer. */
function schemaRoots(doc: Json): { where: string; ptr: string; schema: Json }[] {
  const roots = Object.entries(doc.components.schemas as Json).map(([name, schema]) => ({ where: `components.schemas.${name}`, ptr: pointer('components', 'schemas', name), schema }));
  for (const { where, path, method, op } of operations(doc)) {
    for (const [type, c] of Object.entries((op.requestBody?.content ?? {}) as Json)) roots.push({ where: `${where} body ${type}`, ptr: pointer('paths', path, method, 'requestBody', 'content', type, 'schema'), schema: c.schema });
    for (const [status, r] of Object.entries(op.responses as Json)) {
      for (const [type, c] of Object.entries((r.content ?? {}) as Json)) roots.push({ where: `${where} ${status} ${type}`, ptr: pointer('paths', path, method, 'responses', status, 'content', type, 'schema'), schema: c.schema });
      for (const [name, h] of Object.entries((r.headers ?? {}) as Json)) roots.push({ where: `${where} ${status} header ${name}`, ptr: pointer('paths', path, method, 'responses', status, 'headers', name, 'schema'), schema: h.schema });
    }
    for (const [i, p] of (op.parameters ?? []).entries()) roots.push({ where: `${where} parameter ${p.name}`, ptr: pointer('paths', path, method, 'parameters', String(i), 'schema'), schema: p.schema });
  }
  return roots;
}

describe('OpenAPI', () => {
  let s: TestServer;
  let fake: SearchAFake;
  let v1: Json;
  let v2: Json;
  /** The first requests of a fresh server, two per lane at once: each document is built when first asked for. */
  let firstAnswers: TestResponse[];
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const defs: [string, PluginDef][] = [];

  before(async () => {
    fake = await startFake();
    s = await startServer({ env: fake.env });
    firstAnswers = await Promise.all(['v1', 'v1', 'v2', 'v2'].map((lane) => request(`${s.url}/openapi/${lane}.json`, 'GET')));
    v1 = (await request(s.url + '/openapi/v1.json', 'GET')).json;
    v2 = (await request(s.url + '/openapi/v2.json', 'GET')).json;
    ajv.addSchema(v1, 'v1.json');
    ajv.addSchema(v2, 'v2.json');
    for (const [id, load] of Object.entries(serviceConfig.plugins)) defs.push([id, (await load()).default]);
  });
  after(async () => {
    await s?.close();
    await fake?.close();
  });

  /** Asserts `value` matches the schema at `ref` (e.g. `v2.json#/components/schemas/Balance`). */
  const conforms = (ref: string, value: unknown, what: string) => {
    const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
    assert.ok(validate(value), `${what}: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${JSON.stringify(value).slice(0, 600)}`);
  };
  /** Asserts an answer matches its documented response: body schema and every documented header. */
  const answers = (doc: 'v1' | 'v2', path: string, method: string, r: TestResponse) => {
    const documented = (doc === 'v1' ? v1 : v2).paths[path][method].responses[String(r.status)];
    assert.ok(documented, `${method.toUpperCase()} ${path} ${r.status} is documented`);
    for (const name of Object.keys(documented.headers ?? {})) assert.ok(r.headers[name.toLowerCase()] !== undefined, `${method.toUpperCase()} ${path} ${r.status}: header ${name}`);
    conforms(`${doc}.json${pointer('paths', path, method, 'responses', String(r.status), 'content', 'application/json', 'schema')}`, r.json, `${method.toUpperCase()} ${path} ${r.status}`);
  };

  it('answers concurrent first requests with the whole document, the same as later requests get', () => {
    assert.deepEqual(firstAnswers.map((r) => r.status), [200, 200, 200, 200]);
    assert.deepEqual(firstAnswers.map((r) => r.json), [v1, v1, v2, v2]);
    assert.ok(Object.keys(v1.paths).length > 10 && Object.keys(v2.paths).length > 10);
  });

  it('documents every registered route in the v1 or v2 document', async () => {
    assert.equal(v1.info.version, '1.0.0');
    assert.equal(v1.openapi, '3.1.0');
    assert.equal(v2.components.securitySchemes.bearerAuth.scheme, 'bearer');
    const documented = new Set<string>();
    for (const doc of [v1, v2]) for (const { where } of operations(doc)) documented.add(where);
    const undocumented = s.routes
      .filter((r) => !r.url.startsWith('/docs/assets') && r.url !== '*' && !r.url.endsWith('/*'))
      .map((r) => `${r.method} ${toOpenApi(r.url).replace(/^\/openapi\/\{lane\}$/, '/openapi/{lane}.json')}`)
      .filter((r) => !documented.has(r));
    assert.deepEqual(undocumented, []);
    assert.ok(s.routes.length > 30);
    for (const row of LEGACY_ROUTES) assert.ok(v1.paths[row.path][row.method.toLowerCase()], row.path);
  });

  it('every registry target has its input and output schemas referenced', () => {
    const run = v2.paths['/api/v2/run'].post;
    const requests = run.requestBody.content['application/json'].schema;
    const results = run.responses['200'].content['application/json'].schema.oneOf.map((r: Json) => v2.components.schemas[r.$ref.split('/').pop()]);
    const byRef = (r: Json) => v2.components.schemas[r.$ref.split('/').pop()];
    let checked = 0;
    for (const [pid, def] of defs) {
      const entries = [
        ...(def.capabilities ?? []).map((c) => ({ type: 'capability', id: c.id, n: c.id, input: c.input, output: c.output, legacy: c.visibility === 'legacy', ids: [c.id, ...(c.aliases ?? [])] })),
        ...(def.endpoints ?? []).map((e) => ({ type: 'endpoint', id: `${pid}.${e.operation}`, n: `${pid}__${e.operation}`, input: e.input, output: e.output, legacy: endpointVisibility(defs.map(([, d]) => d), def, e).visibility === 'legacy', ids: [`${pid}.${e.operation}`] })),
      ];
      for (const t of entries) {
        if (t.legacy) continue;
        const inputName = `${t.type}_${t.n}_input`;
        const outputName = `${t.type}_${t.n}_output`;
        assert.deepEqual(v2.components.schemas[inputName], plainJson(t.input), inputName);
        if (t.output) assert.deepEqual(v2.components.schemas[outputName], plainJson(t.output), outputName);
        else assert.ok(v2.components.schemas[outputName], outputName);
        const req = requests.oneOf.map(byRef).find((r: Json) => r.properties.input.$ref === `#/components/schemas/${inputName}`);
        assert.ok(req, `run request of ${t.id}`);
        assert.deepEqual([req.properties.type.const, req.properties.id.const ?? req.properties.id.enum], [t.type, t.ids.length > 1 ? t.ids : t.id]);
        for (const id of t.ids) assert.equal(requests.discriminator.mapping[id], `#/components/schemas/run_${t.type}_${t.n}`, id);
        const res = results.find((r: Json) => r.properties.meta.properties.id.const === t.id);
        assert.ok(res, `run result of ${t.id}`);
        assert.equal(res.properties.data.$ref, `#/components/schemas/${outputName}`);
        assert.ok(v2['x-targets'].some((x: Json) => x.id === t.id && x.input === `#/components/schemas/${inputName}` && x.output === `#/components/schemas/${outputName}`), `x-targets ${t.id}`);
        checked += 1;
      }
    }
    assert.equal(requests.oneOf.length, checked, 'one request schema per public target, no more');
    assert.ok(checked >= 30, String(checked));
  });

  it('every property, parameter and header in both documents has a description', () => {
    const missing: string[] = [];
    for (const [lane, doc] of [['v1', v1], ['v2', v2]] as const) {
      for (const { where, schema } of schemaRoots(doc)) {
        for (const field of undocumentedFields(schema)) missing.push(`${lane} ${where}: ${field}`);
      }
      for (const { where, op } of operations(doc)) {
        for (const p of op.parameters ?? []) if (!p.description) missing.push(`${lane} ${where} parameter ${p.name}`);
        for (const [status, r] of Object.entries(op.responses as Json)) {
          if (!r.description) missing.push(`${lane} ${where} ${status}`);
          for (const [name, h] of Object.entries((r.headers ?? {}) as Json)) if (!h.description) missing.push(`${lane} ${where} ${status} header ${name}`);
        }
      }
    }
    assert.deepEqual(missing, []);
    // The check bites: a hand-written field without a description is reported.
    assert.deepEqual(undocumentedFields({ type: 'object', properties: { a: { type: 'object', description: 'x', properties: { b: { type: 'string' } } } } }), ['a.b']);
  });

  it('the documents hold together: schemas compile, references resolve, operation ids are unique, path parameters declared', () => {
    for (const [lane, doc] of [['v1', v1], ['v2', v2]] as const) {
      // Each schema is valid JSON Schema 2020-12 (Ajv checks it against the meta-schema) and its references resolve.
      for (const { where, ptr, schema } of schemaRoots(doc)) {
        assert.ok(schema && typeof schema === 'object', `${lane} ${where}: has a schema`);
        assert.doesNotThrow(() => ajv.compile({ $ref: `${lane}.json${ptr}` }), `${lane} ${where}`);
        assert.equal(ajv.validateSchema(schema), true, `${lane} ${where}: ${JSON.stringify(ajv.errors)}`);
      }
      const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
      for (const r of new Set(refs)) {
        const target = JSON.parse(`{${r}}`).$ref as string;
        const name = target.replace('#/components/schemas/', '');
        assert.ok(target.startsWith('#/components/schemas/') && doc.components.schemas[name], `${lane}: ${target} resolves`);
      }
      const ids = operations(doc).map(({ op }) => op.operationId);
      assert.equal(new Set(ids).size, ids.length, `${lane}: operation ids are unique`);
      for (const { where, path, op } of operations(doc)) {
        assert.ok(op.summary && op.responses && Object.keys(op.responses).length > 0, where);
        for (const m of path.matchAll(/\{(\w+)\}/g)) assert.ok((op.parameters ?? []).some((p: Json) => p.in === 'path' && p.name === m[1] && p.required), `${where}: path parameter ${m[1]}`);
        for (const sec of op.security ?? doc.security) for (const scheme of Object.keys(sec)) assert.ok(doc.components.securitySchemes[scheme], `${where}: ${scheme}`);
      }
    }
  });

  it('v1 bodies, errors and headers come from the registry and the server', () => {
    const scrape = v1.components.schemas.scrape_page_input;
    assert.deepEqual(scrape.required, ['url']);
    assert.equal(scrape.properties.requestSource.type, 'string');
    assert.match(scrape.properties.requestSource.description, /spec §2\.1/);
    const js = v1.paths['/api/v1/run-js-code'].post.responses['500'].content['application/json'].schema;
    assert.ok(js.oneOf.some((r: Json) => r.$ref.endsWith('/CodeError')));
    assert.deepEqual(Object.keys(v1.components.schemas.CodeError.properties.error.properties), ['name', 'value', 'traceback']);
    assert.equal(v1.paths['/api/v1/engine-locations'].get.parameters[0].in, 'query');
    // Each route's 400 names its own spec texts, from the capability's messages and validator.
    const bad = (path: string) => v1.paths[path].post.responses['400'].description as string;
    assert.match(bad('/api/v1/search-news'), /`query parameter is required`/);
    assert.match(bad('/api/v1/get-engine-reviews'), /`Either keyword, cid, or placeId must be provided`/);
    assert.match(bad('/api/v1/scrape'), /`'url' parameter is required and must be a non-empty string\.`/);
    assert.doesNotMatch(bad('/api/v1/scrape'), /query parameter is required/);
    const news = v1.paths['/api/v1/search-news'].post.responses;
    assert.deepEqual(Object.keys(news['200'].headers).sort(), ['X-Credits-Charged', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-Request-Id']);
    assert.ok(news['429'].headers['Retry-After']);
    assert.deepEqual(Object.keys(news['401'].headers), ['X-Request-Id']);
  });

  it('real answers of both lanes match the documents, headers included', async () => {
    const { key } = await s.createKey({ credits: 1000, rateLimitPerMinute: 1000 });
    const call = (method: string, path: string, body?: unknown) => s.call(method, path, { key, body });
    const news = await call('POST', '/api/v1/search-news', { query: 'tides', dateRange: 'pastDay' });
    assert.equal(news.status, 200, news.text);
    answers('v1', '/api/v1/search-news', 'post', news);
    answers('v1', '/api/v1/search-news', 'post', await call('POST', '/api/v1/search-news', { query: ' ' }));
    answers('v1', '/api/v1/engine-locations', 'get', await call('GET', '/api/v1/engine-locations?q=texas'));
    const runs = [
      { type: 'capability', id: 'search_news', input: { query: 'tides' } },
      { type: 'capability', id: 'engine_search', input: { query: 'tides' }, provider: 'search_a', options: { include_native: true } },
      { type: 'endpoint', id: 'search_a.places', input: { q: 'tacos' }, requestSource: 'PLAYGROUND' },
    ];
    for (const body of runs) {
      conforms(`v2.json${pointer('paths', '/api/v2/run', 'post', 'requestBody', 'content', 'application/json', 'schema')}`, body, `run request ${body.id}`);
      const r = await call('POST', '/api/v2/run', body);
      assert.equal(r.status, 200, r.text);
      answers('v2', '/api/v2/run', 'post', r);
    }
    const wrong = { type: 'capability', id: 'search_news', input: { q: 'not the capability field' } };
    assert.equal(ajv.compile({ $ref: `v2.json${pointer('paths', '/api/v2/run', 'post', 'requestBody', 'content', 'application/json', 'schema')}` })(wrong), false, 'the per-target input is enforced');
    answers('v2', '/api/v2/run', 'post', await call('POST', '/api/v2/run', wrong));
    answers('v2', '/api/v2/search', 'post', await call('POST', '/api/v2/search', { query: 'news', limit: 5 }));
    for (const [id, type] of [['search_news', 'capability'], ['search_a.news', 'endpoint'], ['search_a', 'provider']]) {
      const d = await call('POST', '/api/v2/details', { id, type, includeRelated: true });
      assert.equal(d.json.data.type, type);
      answers('v2', '/api/v2/details', 'post', d);
    }
    answers('v2', '/api/v2/balance', 'get', await call('GET', '/api/v2/balance'));
    const usage = await call('GET', '/api/v2/usage?limit=50');
    assert.ok(usage.json.data.items.length > 5);
    answers('v2', '/api/v2/usage', 'get', usage);
    const ledger = await call('GET', '/api/v2/transactions');
    assert.ok(ledger.json.data.items.some((e: Json) => e.kind === 'charge') && ledger.json.data.items.some((e: Json) => e.kind === 'grant'));
    answers('v2', '/api/v2/transactions', 'get', ledger);
    answers('v2', '/api/v2/balance', 'get', await s.call('GET', '/api/v2/balance', { key: 'cia_not_a_key' }));
    // The key's own 429 carries Retry-After, as documented.
    const { key: slow } = await s.createKey({ credits: 10, rateLimitPerMinute: 1 });
    await s.call('GET', '/api/v2/balance', { key: slow });
    const limited = await s.call('GET', '/api/v2/balance', { key: slow });
    assert.equal(limited.status, 429);
    answers('v2', '/api/v2/balance', 'get', limited);
    const limitedV1 = await s.call('GET', '/api/v1/engine-locations', { key: slow });
    assert.equal(limitedV1.status, 429);
    answers('v1', '/api/v1/engine-locations', 'get', limitedV1);
  });

  it("a monitor's options are documented as scrape_page's own input without url, and the server agrees", async () => {
    const body = (path: string, method: string) => `v2.json${pointer('paths', path, method, 'requestBody', 'content', 'application/json', 'schema')}`;
    const scrapeInput = v2.components.schemas.capability_scrape_page_input;
    const create = v2.paths['/api/v2/monitors'].post.requestBody.content['application/json'].schema;
    const documented = Object.keys(create.properties.options.properties ?? {}).sort();
    assert.deepEqual(documented, Object.keys(scrapeInput.properties).filter((k) => k !== 'url').sort());
    assert.ok(documented.includes('formats') && documented.includes('actions'), 'the scrape options are listed');
    const { key } = await s.createKey({ credits: 1000 });
    // What the document refuses, the server refuses; what it accepts, the server accepts.
    const good = { url: 'https://example.com/', interval: 3_600_000, options: { formats: ['markdown'], maxAge: 60_000 } };
    const bad = { ...good, options: { formats: ['not-a-format'] } };
    const validate = ajv.getSchema(body('/api/v2/monitors', 'post')) ?? ajv.compile({ $ref: body('/api/v2/monitors', 'post') });
    assert.equal(validate(good), true, JSON.stringify(validate.errors));
    assert.equal(validate(bad), false, 'the document refuses an unknown format');
    const refused = await request(s.url + '/api/v2/monitors', 'POST', { token: key, body: bad });
    assert.equal(refused.status, 400, refused.text);
    const made = await request(s.url + '/api/v2/monitors', 'POST', { token: key, body: good });
    assert.equal(made.status, 201, made.text);
    answers('v2', '/api/v2/monitors', 'post', made);
    assert.deepEqual(made.json.data.options.formats, ['markdown']);
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
