/**
 * One folder + one line for plugin authors (issue 28): a deployment's own plugin with a setting
 * is documented by the instance (`GET /settings-reference`, generated from the declarations of
 * the plugins it loads), while the README and its test cover only the plugins the repository
 * ships, so adding such a plugin to plugins.config.ts leaves the README current.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Type, definePlugin, defineEndpoint, flat } from '../core/sdk.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { generatedReadme } from '../scripts/readme-tables.js';

/** A deployment's own plugin, as an operator would add it: a folder of its own and one line. */
const ownPlugin = definePlugin({
  id: 'acme_pages',
  apiVersion: 1,
  title: 'Acme pages',
  summary: 'An operator plugin that is not part of this repository.',
  config: {
    region: { description: 'Acme data region.', default: 'eu-west' },
    apiKey: { type: 'secret', description: 'Acme API key.', required: true, default: 'do-not-show' },
  },
  endpoints: [defineEndpoint({ operation: 'ping', title: 'Ping', summary: 'Answers pong.', input: Type.Object({}), output: Type.Object({ pong: Type.Boolean({ description: 'Always true.' }) }), cost: flat(0), run: async () => ({ pong: true }) })],
});

let s: TestServer;
before(async () => {
  const config = pluginsConfig(['locations']);
  config.plugins.acme_pages = async () => ({ default: ownPlugin });
  s = await startServer({ serviceConfig: config });
});
after(() => s?.close());

test('the instance serves the settings of the plugins it loads, the deployment’s own included', async () => {
  const md = await s.call('GET', '/settings-reference');
  assert.equal(md.status, 200);
  assert.match(md.headers['content-type']!, /^text\/markdown/);
  assert.match(md.text, /^\| `ACME_PAGES_REGION` \| `eu-west` \| acme_pages: Acme data region\. \|$/m);
  assert.match(md.text, /^\| `ACME_PAGES_API_KEY` \| unset \(required\) \| acme_pages \(secret\): Acme API key\. \|$/m);
  assert.doesNotMatch(md.text, /do-not-show/);
  assert.match(md.text, /^\| `DATA_DIR` \|/m);
  const json = (await s.call('GET', '/settings-reference?format=json')).json;
  const region = json.plugins.find((r: any) => r.variable === 'ACME_PAGES_REGION');
  assert.deepEqual(region, { variable: 'ACME_PAGES_REGION', plugin: 'acme_pages', type: 'string', default: 'eu-west', required: false, secret: false, description: 'Acme data region.' });
  assert.ok(!JSON.stringify(json).includes('do-not-show'));
});

test('the README tables follow the shipped plugins, not the deployment list', async () => {
  const root = join(import.meta.dirname, '..');
  const { current, wanted } = await generatedReadme(root);
  assert.ok(current === wanted, 'README current');
  assert.ok(!current.includes('ACME_PAGES'));
  // The generator reads the shipped plugins from their folders and only the provider order from
  // plugins.config.ts (for the capability reference), never its plugin list: a deployment's own
  // plugin line (the scaffold adds one) cannot make the README or the reference stale.
  const generator = await readFile(join(root, 'scripts', 'readme-tables.ts'), 'utf8');
  assert.doesNotMatch(generator, /serviceConfig\.plugins|config\.plugins/);
  assert.match(generator, /SHIPPED_PLUGINS/);
});
