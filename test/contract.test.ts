/**
 * The plugin contract, for every plugin listed in plugins.config.ts: id and folder agree, a README
 * exists, examples validate (boot) and run through the real server — against the plugin's fake
 * when it has one — and every v1 route answers through its row of the mapping table.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { access, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import serviceConfig from '../plugins.config.js';
import { startServer, type TestServer } from './helpers/server.js';
import { LEGACY_ROUTES } from '../server/v1/legacy-routes.js';
import type { PluginDef } from '../core/plugin/types.js';
import { configEnv } from '../core/registry/build.js';

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

  it('plugin code imports nothing from core but core/sdk.ts (house style 2)', async () => {
    const files = (await readdir(join(root, 'plugins'), { recursive: true })).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    const offenders: string[] = [];
    for (const f of files) {
      const text = await readFile(join(root, 'plugins', f), 'utf8');
      for (const m of text.matchAll(/from\s+['"]([^'"]+)['"]/g)) {
        if (/(^|\/)core\//.test(m[1]!) && !m[1]!.endsWith('core/sdk.js')) offenders.push(`plugins/${f}: ${m[1]}`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it('every provider that needs a key ships a fake', async () => {
    for (const [id, def] of plugins) {
      const needsKey = Object.values(def.config ?? {}).some((f) => f.required);
      if (needsKey) assert.ok(await exists(join(root, 'plugins', id, 'fake.ts')), `plugins/${id}/fake.ts`);
    }
  });

  it('every public endpoint example runs through the server against the fakes', async () => {
    for (const [id, def] of plugins) {
      for (const ep of def.endpoints ?? []) {
        if (ep.visibility === 'legacy') continue;
        for (const ex of ep.examples ?? []) {
          const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: `${id}.${ep.operation}`, input: ex.input } });
          assert.equal(r.status, 200, `${id}.${ep.operation} "${ex.title}": ${r.status} ${r.text.slice(0, 300)}`);
          assert.equal(r.json.success, true);
        }
      }
    }
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
