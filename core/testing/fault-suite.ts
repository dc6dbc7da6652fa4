/**
 * The provider fault suite (issue 29): one call from a plugin's test proves, through the real
 * executor and against the plugin's fake, that every upstream failure reaches the caller as the
 * catalogue says (spec §7.1): 5xx → 502, 429 → 503, a refused key → 500 `Service authentication
 * failed`, an empty account → the 503 out-of-credits text, a body that is not the contract → 502
 * `Received invalid data structure`, no answer or an answer too slow → 502 `timed out`, no server →
 * 502, no key configured → 500 `Service not configured`. The texts are what users see today.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { PluginDef } from '../plugin/types.js';
import { MESSAGES } from '../errors.js';
import { catalogue } from '../catalogue.js';
import { pluginHarness, type HarnessOptions, type PluginHarness } from './harness.js';
import type { FakeUpstream } from './fake-upstream.js';

/** The faults the suite plays, each one a test. */
export type Fault = 'server error' | 'unavailable' | 'rate limit' | 'key refused' | 'out of credits' | 'garbage' | 'hang' | 'drip' | 'unreachable' | 'not configured';

/** What {@link providerFaultSuite} needs. */
export interface FaultSuiteOptions {
  plugin: PluginDef<any, any>;
  /** Starts the plugin's fake (its `startFake`). */
  fake: () => Promise<FakeUpstream<any>>;
  /** The call to break: a capability id, or an endpoint operation of the plugin. */
  capability?: string;
  endpoint?: string;
  /**
   * An input that succeeds against the healthy fake; default the first example of the capability
   * in the catalogue (or of the endpoint in the plugin), so the suite breaks a documented call.
   */
  input?: unknown;
  /** The name public messages give the provider; default the plugin id. */
  service?: string;
  /** More harness options (extra plugins, provider order). */
  harness?: Omit<HarnessOptions, 'env' | 'timeLimitMs'>;
  /** Where this provider's answer differs from the rule: the `<status> <message>` it gives, or `false` to skip the fault. */
  expect?: Partial<Record<Fault, string | false>>;
  /**
   * The provider's own faults, one test each: name → how to break the fake (an error body of its
   * own, a state switch) and the `<status> <message>` callers then see. The fake is reset after each.
   */
  also?: Record<string, [breakIt: (fake: FakeUpstream<Record<string, any>>) => void, expected: string]>;
  /** The time limit the hang and drip faults run under, ms; default 600. */
  timeLimitMs?: number;
}

/** `<status> <message>` of a failed call; fails the test when the call succeeds. */
async function failure(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    const e = err as { status?: number; message?: string };
    return `${e.status ?? 0} ${e.message}`;
  }
  return assert.fail('the call succeeded');
}

/** Registers a `describe` block with one test per fault. */
export function providerFaultSuite(opts: FaultSuiteOptions): void {
  const { plugin } = opts;
  const service = opts.service ?? plugin.id;
  const expected: Record<Fault, string> = {
    'server error': `502 Failed to retrieve data from ${service} service.`,
    unavailable: `502 Failed to retrieve data from ${service} service.`,
    'rate limit': `503 ${MESSAGES.upstreamRateLimited}`,
    'key refused': `500 ${MESSAGES.providerAuthFailed}`,
    'out of credits': '503 The service is temporarily unavailable. Please try again later.',
    garbage: `502 Received invalid data structure from ${service} service.`,
    hang: `502 The ${plugin.id} service timed out.`,
    drip: `502 The ${plugin.id} service timed out.`,
    unreachable: `502 Failed to retrieve data from ${service} service.`,
    'not configured': `500 ${MESSAGES.notConfigured}`,
  };
  const target = opts.capability ?? `${plugin.id}.${opts.endpoint}`;
  const examples = opts.capability ? catalogue.find((c) => c.id === opts.capability)?.examples : plugin.endpoints?.find((e) => e.operation === opts.endpoint)?.examples;
  const input = 'input' in opts ? opts.input : examples?.[0]?.input;
  if (input === undefined) throw new Error(`providerFaultSuite: ${target} has no example; give an input.`);
  let fake: FakeUpstream<any>;
  const harnesses: PluginHarness[] = [];
  const harness = async (env: Record<string, string>, timeLimitMs?: number) => {
    const h = await pluginHarness(plugin, { ...opts.harness, env, timeLimitMs });
    harnesses.push(h);
    return h;
  };
  const call = (h: PluginHarness) => (opts.capability ? h.capability(opts.capability, input, { provider: plugin.id }) : h.endpoint(opts.endpoint!, input));

  describe(`${plugin.id}: upstream faults of ${target} as callers see them`, () => {
    let h: PluginHarness;
    // Harnesses with a short time limit for the hang and drip faults: the limit has to pass before
    // the call ends, and on a loaded machine it can pass before the request has even left, so a
    // call that never reached the fake is tried again under a limit three times as long.
    const impatient: PluginHarness[] = [];
    const patience = async (attempt: number) => (impatient[attempt] ??= await harness(fake.env, (opts.timeLimitMs ?? 600) * 3 ** attempt));
    before(async () => {
      fake = await opts.fake();
      h = await harness(fake.env);
    });
    after(async () => {
      // The fake first: closing it drops the calls still held open by the hang and drip faults,
      // which a harness would otherwise wait for (a provider may keep its create call alive past
      // the caller's deadline on purpose, to learn the id it must cancel).
      await fake.close();
      for (const one of harnesses.splice(0)) await one.close();
    });

    it('the input succeeds against the healthy fake (so every fault below is the fault alone)', async () => {
      const seen = fake.requests.length;
      await call(h);
      assert.ok(fake.requests.length > seen, 'the call reached the fake');
    });

    const play = (fault: Fault | string, breakIt: (f: FakeUpstream<any>) => void, slow = false, own?: string) => {
      const want = own ?? opts.expect?.[fault as Fault] ?? expected[fault as Fault];
      if (want === false) return;
      it(`${fault} → ${want}`, async () => {
        let seen = fake.requests.length;
        breakIt(fake);
        try {
          let got = await failure(call(slow ? await patience(0) : h));
          for (let attempt = 1; slow && attempt < 3 && fake.requests.length === seen; attempt++) {
            seen = fake.requests.length;
            got = await failure(call(await patience(attempt)));
          }
          assert.equal(got, want);
          assert.ok(!got.includes(fake.apiKey) && !got.includes(fake.url), 'the message names neither key nor address');
          assert.ok(fake.requests.length > seen, 'the call reached the fake');
        } finally {
          fake.reset();
        }
      });
    };
    play('server error', (f) => f.failWith(500));
    play('unavailable', (f) => f.failWith(503));
    play('rate limit', (f) => f.rateLimit());
    play('key refused', (f) => f.rejectKey());
    play('out of credits', (f) => f.outOfCredits());
    play('garbage', (f) => f.garbage());
    play('hang', (f) => f.hang(), true);
    play('drip', (f) => f.drip(), true);
    for (const [name, [breakIt, want]] of Object.entries(opts.also ?? {})) play(name, breakIt, false, want);

    // The setting that carries the base URL (or the key) is the one whose value is (or starts with) the fake's.
    const without = (value: string): Record<string, string> => Object.fromEntries(Object.entries(fake.env as Record<string, string>).filter(([, v]) => v !== value));
    const nameOf = (value: string) => Object.entries(fake.env as Record<string, string>).find(([, v]) => v === value || v.startsWith(`${value}/`))?.[0];
    if (opts.expect?.unreachable !== false) {
      it(`unreachable → ${opts.expect?.unreachable ?? expected.unreachable}`, async () => {
        const name = nameOf(fake.url);
        assert.ok(name, 'the fake env names the base URL');
        const closed = await opts.fake();
        await closed.close();
        const env = { ...fake.env, [name]: fake.env[name].replace(fake.url, closed.url) };
        assert.equal(await failure(call(await harness(env))), opts.expect?.unreachable ?? expected.unreachable);
      });
    }
    if (opts.expect?.['not configured'] !== false) {
      it(`not configured → ${opts.expect?.['not configured'] ?? expected['not configured']}`, async () => {
        assert.ok(nameOf(fake.apiKey), 'the fake env names the key');
        assert.equal(await failure(call(await harness(without(fake.apiKey)))), opts.expect?.['not configured'] ?? expected['not configured']);
      });
    }
  });
}
