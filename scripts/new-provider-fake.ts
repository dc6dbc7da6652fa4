/**
 * The scaffold's fake and test (issue 29): `fake.ts` speaks the placeholder contract of the
 * generated client on the fake kit, and `<id>.test.ts` runs the capability against it through the
 * real executor and calls the provider fault suite. Both import `core/testing` and their folder.
 */
import { FAKE_UNITS, docComment, key, literal, prop, type ProviderPlan } from './new-provider-plan.js';

/** `plugins/<id>/fake.ts`. */
export function fakeFile(p: ProviderPlan): string {
  const state = p.unit ? '{ answer: object; units: number }' : '{ answer: object }';
  const initial = p.unit ? `{ answer: RECORDED_ANSWER, units: ${FAKE_UNITS} }` : '{ answer: RECORDED_ANSWER }';
  const body = p.unit ? '{ data: fake.answer, units: fake.units }' : '{ data: fake.answer }';
  const header = `A loopback fake of the ${p.id} API on the fake kit, speaking the placeholder contract of client.ts: \`POST ${p.upstreamPath}\` with a Bearer key; a body without the fields the capability requires is refused (400); otherwise it answers \`${body.replace(/fake\./g, '')}\`. State: \`answer\` is what it answers (by default a value of every field the capability's output requires)${p.unit ? `, \`units\` the ${p.unit} it reports` : ''}. Change it together with the client when you write in the provider's real contract.`;
  return `${docComment(header)}
import { fakeUpstream, type FakeUpstream } from '../../core/testing/index.js';

/** What the fake answers unless a test sets \`fake.answer\`. */
export const RECORDED_ANSWER: object = ${literal(p.recordedAnswer)};

/** The fields a request must carry. */
const REQUIRED: string[] = ${literal(p.inputFields)};

/** A running fake. */
export type ${p.pascal}Fake = FakeUpstream<${state}>;

/** Starts the fake on 127.0.0.1 with a random port. */
export function startFake(opts: { apiKey?: string } = {}): Promise<${p.pascal}Fake> {
  return fakeUpstream({
    apiKey: opts.apiKey ?? '${p.id.replace(/_/g, '-')}-test-key',
    error: (status, message) => ({ error: { status, message } }),
    state: ${initial},
    env: ({ url, apiKey }) => ({ ${p.env.baseUrl}: url, ${p.env.apiKey}: apiKey }),
    routes: {
      'POST ${p.upstreamPath}': ({ body }, fake) => {
        const missing = REQUIRED.filter((field) => body?.[field] === undefined);
        if (missing.length) return fake.error(400, \`Missing field: \${missing.join(', ')}\`);
        return { json: ${body} };
      },
    },
  });
}
`;
}

/** `plugins/<id>/<id>.test.ts`. */
export function testFile(p: ProviderPlan): string {
  const cap = p.capability.id;
  const sentBody = p.inputFields.length ? `{ ${p.inputFields.map((f) => `${key(f)}: INPUT${prop(f)}`).join(', ')} }` : '{}';
  const price = p.unit ? `for this input and ${FAKE_UNITS} ${p.unit} reported` : 'for this input';
  const invalid = p.outputFields.length
    ? `
test('an answer without the fields the capability requires is a 502, not a success', async () => {
  fake.answer = {};
  try {
    await assert.rejects(provider.capability('${cap}', INPUT, { provider: '${p.id}' }), { status: 502, message: 'Received invalid data structure from ${p.id} service.' });
  } finally {
    fake.reset();
  }
});
`
    : '';
  return `/** ${p.id}: the real client against its fake, through the executor (written by \`npm run new-provider\`). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pluginHarness, providerFaultSuite, type PluginHarness } from '../../core/testing/index.js';
import plugin from './index.js';
import { RECORDED_ANSWER, startFake, type ${p.pascal}Fake } from './fake.js';

/** An input the capability \`${cap}\` accepts. */
const INPUT = ${literal(p.sampleInput)};

let fake: ${p.pascal}Fake;
let provider: PluginHarness;
before(async () => {
  fake = await startFake();
  provider = await pluginHarness(plugin, { env: fake.env });
});
after(async () => {
  await provider.close();
  await fake.close();
});

providerFaultSuite({ plugin, fake: startFake, capability: '${cap}', input: INPUT });

test('${cap}: the required fields reach ${p.id} with its key, and its answer comes back in the capability\\'s shape', async () => {
  const r = await provider.capability('${cap}', INPUT, { provider: '${p.id}' });
  const sent = fake.requests.at(-1)!;
  assert.deepEqual([sent.method, sent.path, sent.headers.authorization], ['POST', '${p.upstreamPath}', \`Bearer \${fake.apiKey}\`]);
  assert.deepEqual(sent.body, ${sentBody});
  assert.deepEqual(r.data, RECORDED_ANSWER);
  // The catalogue's price ${price}.
  assert.deepEqual([r.provider, r.credits], ['${p.id}', ${p.expectedCredits}]);
});

test('the endpoint answers its own example', async () => {
  const example = plugin.endpoints![0]!.examples![0]!;
  const r = await provider.endpoint('${p.operation}', example.input);
  assert.deepEqual(r.data, RECORDED_ANSWER);
});
${invalid}`;
}
