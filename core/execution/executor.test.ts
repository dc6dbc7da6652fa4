/**
 * The executor's stages as a caller sees them (issue 29): one output check per call, the same
 * 502 for a bad provider answer however it is reached, admission asking the policy before the
 * input, and observers that watch calls without replacing `execute`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { FormatRegistry } from '@sinclair/typebox';
import { Type, defineCapability, defineEndpoint, definePlugin, flat } from '../sdk.js';
import { engineHarness, type PluginHarness } from '../testing/engine-harness.js';
import { RecordingLedger } from '../testing/free-ledger.js';
import type { KeyRecord } from '../keys/types.js';
import { Executor, type FinishedCall } from './executor.js';

// Every check of a value against `Answer` calls this format once: it counts output checks.
let checks = 0;
FormatRegistry.Set('counted_answer', () => {
  checks += 1;
  return true;
});

const Input = Type.Object({ text: Type.String({ description: 'Text.', minLength: 1 }) });
const Answer = Type.Object({ text: Type.String({ description: 'Text.', format: 'counted_answer' }) });
const Mapped = Type.Object({ said: Type.String({ description: 'Text said.' }) });

/** A provider whose answer depends on the input: `bad` answers garbage, `fail` throws a 502. */
const provider = (id: string, extra: { capabilities?: ReturnType<typeof defineCapability>[]; mapped?: boolean } = {}) =>
  definePlugin({
    id,
    apiVersion: 1,
    title: id,
    summary: 'Test provider.',
    capabilities: extra.capabilities,
    endpoints: [
      defineEndpoint({
        operation: 'say',
        title: 'Say',
        summary: 'Says text.',
        input: Input,
        output: Answer,
        cost: flat(3),
        async run(i) {
          if (i.text === `bad_${id}`) return { text: 42 } as never;
          return { text: i.text };
        },
      }),
    ],
    implements: [
      { capability: 'say', endpoint: 'say' },
      ...(extra.mapped ? [{ capability: 'say_mapped', endpoint: 'say', mapOutput: (o: { text: string }) => (o.text === 'unmappable' ? { said: 7 } : { said: o.text }) }] : []),
    ],
  });

const capabilities = [
  defineCapability({ id: 'say', title: 'Say', summary: 'Says text.', input: Input, output: Answer, cost: flat(3) }),
  defineCapability({ id: 'say_mapped', title: 'Say, mapped', summary: 'Says text as `said`.', input: Input, output: Mapped, cost: flat(3) }),
];

describe('executor stages', () => {
  let h: PluginHarness;
  before(async () => {
    h = await engineHarness(provider('first_p', { capabilities, mapped: true }), { plugins: [provider('second_p')], providerOrder: { say: ['first_p', 'second_p'] } });
  });
  after(() => h.close());

  it('checks a provider answer once per call, also when the endpoint shares the capability schema', async () => {
    checks = 0;
    assert.equal((await h.capability('say', { text: 'hi' })).data.text, 'hi');
    assert.equal(checks, 1, 'capability call');
    checks = 0;
    assert.equal((await h.endpoint('say', { text: 'hi' })).data.text, 'hi');
    assert.equal(checks, 1, 'direct endpoint call');
  });

  it('answers a bad provider answer with the same 502, and lets the next provider serve a capability', async () => {
    const invalid = (provider: string) => (e: { status: number; message: string }) => e.status === 502 && e.message === `Received invalid data structure from ${provider} service.`;
    await assert.rejects(h.endpoint('say', { text: 'bad_first_p' }), invalid('first_p'));
    await assert.rejects(h.capability('say', { text: 'bad_second_p' }, { provider: 'second_p' }), invalid('second_p'));
    await assert.rejects(h.capability('say_mapped', { text: 'unmappable' }), invalid('first_p'));
    const r = await h.capability('say', { text: 'bad_first_p' });
    assert.equal(r.provider, 'second_p');
    assert.deepEqual(r.fallbacks, [{ provider: 'first_p', code: 'UPSTREAM_ERROR' }]);
    assert.deepEqual((await h.capability('say_mapped', { text: 'hi' })).data, { said: 'hi' });
  });

  it('asks the key policy before it looks at the input, and names an unknown provider', async () => {
    const blocked = await engineHarness(provider('first_p', { capabilities }), { policy: { block: ['say'] } });
    try {
      await assert.rejects(blocked.capability('say', { text: '' }), (e: { status: number; code: string }) => e.status === 403 && e.code === 'PROVIDER_NOT_ALLOWED');
    } finally {
      await blocked.close();
    }
    await assert.rejects(h.capability('say', { text: '' }), (e: { status: number }) => e.status === 400);
    await assert.rejects(h.capability('say', { text: 'hi' }, { provider: 'nobody_p' }), (e: { status: number; message: string }) => e.status === 400 && /Providers: first_p, second_p/.test(e.message));
  });

  it('tells observers how each call ended, survives an observer that throws, and stops telling after unsubscribe', async () => {
    const ledger = new RecordingLedger();
    const executor = new Executor(h.registry, ledger, h.engines);
    const now = new Date();
    const key: KeyRecord = { id: 'key_obs', name: 'obs', prefix: 'cia_obs', credits: 1000, budget: null, periodStart: now, periodSpent: 0, rateLimit: 1000, active: true, policy: {}, createdAt: now, updatedAt: now };
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const call = (text: string, id = 'say') => executor.execute({ requestId: randomUUID(), key, target: { type: 'capability', capability: h.registry.capability(id)! }, input: { text }, signal: AbortSignal.timeout(10_000), log: quiet });
    const seen: FinishedCall[] = [];
    let started = 0;
    executor.observe({ started: () => void (started += 1), finished: (c) => void seen.push(c) });
    const stop = executor.observe({ finished: () => { throw new Error('observer fault'); } });

    const served = await call('bad_first_p');
    await assert.rejects(call('bad_first_p', 'say_mapped'), /invalid data structure from first_p/);
    await assert.rejects(call(''), (e: { status: number }) => e.status === 400);
    assert.equal(started, 3);
    assert.equal(seen[0]!.result, served);
    assert.equal(seen[0]!.provider, 'second_p');
    assert.deepEqual([seen[1]!.error?.code, seen[1]!.provider], ['UPSTREAM_ERROR', 'first_p']);
    assert.deepEqual([seen[2]!.error?.code, seen[2]!.provider], ['INVALID_INPUT', undefined], 'refused at admission: no provider tried');

    stop();
    seen.length = 0;
    await call('hi');
    assert.equal(seen.length, 1);
  });
});
