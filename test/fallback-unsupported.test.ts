/**
 * A provider that cannot honour an option the caller set (UnsupportedOptionError) hands the call to
 * the next provider of the capability; only when none can is its 400 the answer, and nothing is charged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type, UnsupportedOptionError, defineCapability, defineEndpoint, definePlugin, flat } from '../core/sdk.js';
import { pluginHarness } from '../core/testing/index.js';

const Input = Type.Object({ text: Type.String({ description: 'Text.' }), fancy: Type.Optional(Type.Boolean({ description: 'An option only some providers support.' })) });
const Output = Type.Object({ text: Type.String({ description: 'Text.' }), by: Type.String({ description: 'Provider.' }) });

const provider = (id: string, fancy: boolean) =>
  definePlugin({
    id,
    apiVersion: 1,
    title: id,
    summary: 'Test provider.',
    ...(id === 'plain_p' ? { capabilities: [defineCapability({ id: 'say', title: 'Say', summary: 'Says text.', input: Input, output: Output, cost: flat(7) })] } : {}),
    endpoints: [
      defineEndpoint({
        operation: 'say',
        title: 'Say',
        summary: 'Says text.',
        input: Input,
        output: Output,
        cost: flat(7),
        async run(i) {
          if (i.fancy && !fancy) throw new UnsupportedOptionError(`'fancy' is not supported by provider ${id}.`);
          return { text: i.text, by: id };
        },
      }),
    ],
    implements: [{ capability: 'say', endpoint: 'say' }],
  });

test('an unsupported option falls back to a provider that has it; with none, the 400 is the answer', async () => {
  const plain = provider('plain_p', false);
  const both = await pluginHarness(plain, { plugins: [provider('fancy_p', true)], providerOrder: { say: ['plain_p', 'fancy_p'] } });
  try {
    const r = await both.capability('say', { text: 'hi', fancy: true });
    assert.equal(r.data.by, 'fancy_p');
    assert.deepEqual(r.fallbacks, [{ provider: 'plain_p', code: 'INVALID_INPUT' }]);
    assert.equal((await both.capability('say', { text: 'hi' })).data.by, 'plain_p');
  } finally {
    await both.close();
  }
  const alone = await pluginHarness(plain);
  try {
    await assert.rejects(alone.capability('say', { text: 'hi', fancy: true }), (e: { status: number; message: string }) => e.status === 400 && /not supported by provider plain_p/.test(e.message));
  } finally {
    await alone.close();
  }
});
