/** Boot validation reports every problem at once, naming plugin, field and fix. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildRegistry, RegistryError } from './build.js';
import { Type, definePlugin, defineCapability, defineEndpoint, flat } from '../sdk.js';
import type { Engines } from '../engines/types.js';

const log = { debug() {}, info() {}, warn() {}, error() {} };
const engines = {} as Engines;

describe('registry build', () => {
  it('collects every problem in one error', async () => {
    const cap = defineCapability({ id: 'good_cap', title: 't', summary: 's', input: Type.Object({ q: Type.String() }), cost: flat(1), aliases: ['alias_a'] });
    const dupCap = defineCapability({ id: 'good_cap', title: 't', summary: 's', input: Type.Object({}), cost: flat(1) });
    const ep = defineEndpoint({
      operation: 'Bad-Op',
      title: 't',
      summary: 's',
      input: Type.Object({ n: Type.Integer() }),
      output: Type.Object({}),
      cost: flat(1),
      examples: [{ title: 'wrong', input: { n: 'x' as unknown as number } }],
      run: async () => ({}),
    });
    const bad = definePlugin({ id: 'BadName', apiVersion: 1, title: 't', summary: 's', capabilities: [cap, dupCap], endpoints: [ep], implements: [{ capability: 'missing_cap', endpoint: 'nope' }] });
    const err = await buildRegistry(
      {
        plugins: { wrong_key: async () => ({ default: bad }), broken: async () => { throw new Error('boom'); } },
        providerOrder: { good_cap: ['ghost'] },
      },
      { env: {}, engines, log, legacyTargets: [{ path: '/api/v1/x', target: 'capability:nowhere' }] },
    ).then(() => undefined, (e) => e);
    assert.ok(err instanceof RegistryError);
    const text = err.problems.join('\n');
    for (const expected of [
      "id is 'BadName' but it is listed as 'wrong_key'",
      "id 'BadName' is not snake_case",
      "capability 'good_cap': duplicate capability id",
      "operation 'Bad-Op' is not snake_case",
      'examples[0] ("wrong") input does not match the input schema',
      "unknown capability 'missing_cap'",
      "endpoint 'nope' is not one of this plugin's operations",
      "plugin 'broken': import failed (boom)",
      "providerOrder.good_cap: unknown provider 'ghost'",
      "v1 route /api/v1/x: target 'capability:nowhere' is not registered",
    ]) {
      assert.ok(text.includes(expected), `missing problem: ${expected}\n${text}`);
    }
  });

  it('a provider without its key is listed as not configured, and its setup is not run', async () => {
    let setups = 0;
    const p = definePlugin({
      id: 'keyed',
      apiVersion: 1,
      title: 't',
      summary: 's',
      config: { apiKey: { description: 'k', secret: true, required: true }, baseUrl: { description: 'u', default: 'https://example.test' } },
      setup: () => {
        setups += 1;
        return {};
      },
    });
    const reg = await buildRegistry({ plugins: { keyed: async () => ({ default: p }) } }, { env: {}, engines, log });
    const k = reg.plugins.get('keyed')!;
    assert.equal(k.configured, false);
    assert.deepEqual(k.missing, ['KEYED_API_KEY']);
    assert.equal(k.config.baseUrl, 'https://example.test');
    assert.equal(setups, 0);
    const reg2 = await buildRegistry({ plugins: { keyed: async () => ({ default: p }) } }, { env: { KEYED_API_KEY: 'x', KEYED_BASE_URL: 'http://127.0.0.1:1' }, engines, log });
    assert.equal(reg2.plugins.get('keyed')!.configured, true);
    assert.equal(reg2.plugins.get('keyed')!.config.baseUrl, 'http://127.0.0.1:1');
    assert.equal(setups, 1);
  });
});
