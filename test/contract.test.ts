/**
 * The plugin contract, for every plugin listed in plugins.config.ts: id and folder agree, a README
 * exists, every schema field is described and examples validate (boot), examples run through the
 * real server — v2 for public entries, their v1 row for legacy ones, against the plugin's fake when
 * it has one — and every v1 route answers through its row of the mapping table.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { access, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import serviceConfig from '../plugins.config.js';
import { startServer, type TestServer } from './helpers/server.js';
import { LEGACY_ROUTES } from '../server/legacy-routes.js';
import type { Example, PluginDef } from '../core/plugin/types.js';
import { endpointVisibility } from './helpers/visibility.js';
import { buildRegistry, configEnv, RegistryError } from '../core/registry/build.js';
import { Type, defineEndpoint, definePlugin, flat } from '../core/sdk.js';
import type { Engines } from '../core/engines/types.js';

const root = join(import.meta.dirname, '..');
const exists = (p: string) => access(p).then(() => true, () => false);

interface Fake {
  url?: string;
  apiKey?: string;
  env?: Record<string, string>;
  close(): Promise<void>;
}

/** The fake's starter: `startFake`, or the one `start…Fake` function a fake exports. */
function starterOf(mod: Record<string, unknown>): (() => Promise<Fake>) | undefined {
  if (typeof mod.startFake === 'function') return mod.startFake as () => Promise<Fake>;
  const named = Object.entries(mod).filter(([n, v]) => /^start\w*Fake$/.test(n) && typeof v === 'function');
  return named.length === 1 ? (named[0]![1] as () => Promise<Fake>) : undefined;
}

/** The environment pointing a plugin at its fake: the fake's own `env`, else base URL + key. */
function envFor(id: string, def: PluginDef, fake: Fake): Record<string, string> {
  if (fake.env) return fake.env;
  const env: Record<string, string> = {};
  for (const [field, f] of Object.entries(def.config ?? {})) {
    if (field === 'baseUrl' && fake.url) env[configEnv(id, field, f)] = fake.url;
    if (field === 'apiKey' && fake.apiKey) env[configEnv(id, field, f)] = fake.apiKey;
  }
  return env;
}

describe('plugin contract', () => {
  const plugins: [string, PluginDef][] = [];
  const fakes: Fake[] = [];
  let s: TestServer;
  let key: string;

  before(async () => {
    const env: Record<string, string> = { ALLOW_PRIVATE_NETWORK: 'true' };
    for (const [id, load] of Object.entries(serviceConfig.plugins)) {
      const def = (await load()).default;
      plugins.push([id, def]);
      const fakePath = join(root, 'plugins', id, 'fake.ts');
      if (await exists(fakePath)) {
        const start = starterOf(await import(fakePath));
        assert.ok(start, `plugins/${id}/fake.ts must export startFake() (or one start…Fake function)`);
        const fake = await start();
        fakes.push(fake);
        Object.assign(env, envFor(id, def, fake));
      }
    }
    s = await startServer({ env });
    ({ key } = await s.createKey({ credits: 1_000_000, rateLimitPerMinute: 100_000 }));
  });
  after(async () => {
    await s?.close();
    for (const f of fakes) await f.close();
  });

  it('every listed plugin has a matching id and a README', async () => {
    assert.ok(plugins.length > 0);
    for (const [id, def] of plugins) {
      assert.equal(def.id, id);
      assert.ok(await exists(join(root, 'plugins', id, 'index.ts')), `plugins/${id}/index.ts`);
      assert.ok(await exists(join(root, 'plugins', id, 'README.md')), `plugins/${id}/README.md`);
    }
  });

  // What plugin files may import is checked by test/plugin-imports.test.ts (fakes may use core/testing).

  it('every provider that needs a key ships a fake', async () => {
    for (const [id, def] of plugins) {
      const needsKey = Object.values(def.config ?? {}).some((f) => f.required);
      if (needsKey) assert.ok(await exists(join(root, 'plugins', id, 'fake.ts')), `plugins/${id}/fake.ts`);
    }
  });

  it('every public endpoint example runs through the server against the fakes', async () => {
    for (const [id, def] of plugins) {
      for (const ep of def.endpoints ?? []) {
        if (endpointVisibility(plugins.map(([, d]) => d), def, ep).visibility === 'legacy') continue;
        for (const ex of ep.examples ?? []) {
          const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: `${id}.${ep.operation}`, input: ex.input } });
          assert.equal(r.status, 200, `${id}.${ep.operation} "${ex.title}": ${r.status} ${r.text.slice(0, 300)}`);
          assert.equal(r.json.success, true);
        }
      }
    }
  });

  /** The plugin serving a capability through a v1 row: the first in provider order, as the executor tries them. */
  function firstProvider(capability: string): { plugin: string; endpoint: string; mapped: boolean } | undefined {
    const implementers = plugins.flatMap(([pid, def]) => (def.implements ?? []).filter((i) => i.capability === capability).map((i) => ({ plugin: pid, endpoint: i.endpoint, mapped: !!i.mapInput })));
    const order = serviceConfig.providerOrder?.[capability] ?? [];
    const rank = (p: string) => (order.includes(p) ? order.indexOf(p) : order.length);
    return implementers.sort((a, b) => rank(a.plugin) - rank(b.plugin))[0];
  }

  /** Calls a v1 row with an example input (a GET row takes it as the query string). */
  async function callRow(row: (typeof LEGACY_ROUTES)[number], input: unknown) {
    if (row.method === 'POST') return s.call('POST', row.path, { key, body: input });
    const qs = new URLSearchParams(Object.entries(input as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
    return s.call('GET', `${row.path}${qs.size ? `?${qs}` : ''}`, { key });
  }

  const checkRun = (r: { status: number; text: string; json: any }, ex: Example, what: string, body: (r: any) => unknown) => {
    assert.equal(r.status, 200, `${what} "${ex.title}": ${r.status} ${r.text.slice(0, 300)}`);
    if (ex.output !== undefined) assert.deepEqual(body(r.json), ex.output, `${what} "${ex.title}" answers its declared output`);
  };

  it('every legacy endpoint example runs through the v1 row that reaches it', async () => {
    let ran = 0;
    for (const [id, def] of plugins) {
      for (const ep of def.endpoints ?? []) {
        const seen = endpointVisibility(plugins.map(([, d]) => d), def, ep);
        if (seen.visibility !== 'legacy' || !ep.examples?.length) continue;
        const endpointId = `${id}.${ep.operation}`;
        // A row naming the endpoint, or its capability when this endpoint serves it first and unmapped.
        const row = LEGACY_ROUTES.find((r) => {
          if (r.target === `endpoint:${endpointId}`) return true;
          const first = r.target.startsWith('capability:') ? firstProvider(r.target.slice('capability:'.length)) : undefined;
          return first?.plugin === id && first.endpoint === ep.operation && !first.mapped;
        });
        // A provider that is v1-only because its capabilities are, and maps their input, is reached
        // through those capabilities' rows: their examples run below, and its own passed boot checks.
        if (!row && seen.inherited) continue;
        assert.ok(row, `${endpointId} is v1-only and has examples, but no v1 row runs it with its own input; add a row or drop visibility 'legacy'`);
        for (const ex of ep.examples) {
          checkRun(await callRow(row, ex.input), ex, `${row.method} ${row.path} (${endpointId})`, (j) => j);
          ran += 1;
        }
      }
    }
    assert.ok(ran >= 2, 'locations.list examples at least');
  });

  it('capability examples run through v2 (public) or their v1 row (legacy) when every provider has a fake', async () => {
    const withFake = new Set<string>();
    for (const [id] of plugins) if (await exists(join(root, 'plugins', id, 'fake.ts'))) withFake.add(id);
    const ran: string[] = [];
    for (const [, def] of plugins) {
      for (const cap of def.capabilities ?? []) {
        const providers = plugins.filter(([, d]) => (d.implements ?? []).some((i) => i.capability === cap.id)).map(([pid]) => pid);
        // Without a fake for each provider an example could reach the internet (no test may).
        if (!cap.examples?.length || providers.length === 0 || !providers.every((p) => withFake.has(p))) continue;
        const row = LEGACY_ROUTES.find((r) => r.target === `capability:${cap.id}`);
        for (const ex of cap.examples) {
          if (cap.visibility === 'legacy') {
            assert.ok(row, `capability ${cap.id} is v1-only but no v1 row runs it`);
            checkRun(await callRow(row, ex.input), ex, `${row.method} ${row.path}`, (j) => j);
          } else {
            const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: cap.id, input: ex.input } });
            checkRun(r, ex, `capability ${cap.id}`, (j) => j.data);
          }
          ran.push(cap.id);
        }
      }
    }
    for (const id of ['engine_search', 'search_news', 'search_places', 'engine_autocomplete']) assert.ok(ran.includes(id), `${id} examples ran`);
  });

  it('every v1 route answers through its table row (never an unknown route)', async () => {
    for (const row of LEGACY_ROUTES) {
      const r = await s.call(row.method, row.path, { key, body: row.method === 'POST' ? {} : undefined });
      assert.notEqual(r.status, 404, `${row.method} ${row.path}: ${r.text}`);
      assert.equal(typeof r.json?.error === 'string' || r.status === 200 || typeof r.json?.error === 'object', true, `${row.path}: ${r.text}`);
      assert.ok(r.headers['x-ratelimit-limit'], row.path);
    }
  });
});

describe('boot validation: every schema field is described', () => {
  it('rejects a plugin with an undescribed field at any depth, naming plugin, target, field and fix', async () => {
    const Described = (d: string) => Type.String({ description: d });
    const plugin = definePlugin({
      id: 'sloppy',
      apiVersion: 1,
      title: 't',
      summary: 's',
      endpoints: [
        defineEndpoint({
          operation: 'op',
          title: 't',
          summary: 's',
          input: Type.Object({ q: Described('Query.'), page: Type.Optional(Type.Integer()) }),
          output: Type.Object({
            items: Type.Array(Type.Object({ name: Type.String(), tags: Type.Array(Type.String(), { description: 'Tags.' }) }), { description: 'Items.' }),
            extra: Type.Optional(Type.Object({ inner: Type.Union([Type.Object({ deep: Type.Number() }), Type.Null()], { description: 'Inner.' }) }, { description: 'Extra.' })),
          }),
          cost: flat(1),
          run: async () => ({ items: [] }),
        }),
      ],
    });
    const log = { debug() {}, info() {}, warn() {}, error() {} };
    const err = await buildRegistry({ plugins: { sloppy: async () => ({ default: plugin }) } }, { env: {}, engines: {} as Engines, log }).then(() => undefined, (e) => e);
    assert.ok(err instanceof RegistryError, String(err));
    assert.deepEqual(err.problems, [
      "plugin 'sloppy' endpoint 'sloppy.op' input: field 'page' has no description; add { description: '…' } to its schema (house style 2).",
      "plugin 'sloppy' endpoint 'sloppy.op' output: field 'items[].name' has no description; add { description: '…' } to its schema (house style 2).",
      "plugin 'sloppy' endpoint 'sloppy.op' output: field 'extra.inner.deep' has no description; add { description: '…' } to its schema (house style 2).",
    ]);
  });
});
