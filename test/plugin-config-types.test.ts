/**
 * An endpoint that names its plugin's settings (`config` in `defineEndpoint`) gets them typed in
 * `ctx.config` (issue 29: a newcomer's setting with a default typed as possibly undefined): a
 * setting with a default or `required: true` is present, any other may be undefined. The
 * `@ts-expect-error` lines are checked by `tsc -p tsconfig.test.json`; the test checks the values
 * a handler really receives through the executor.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Type, defineEndpoint, definePlugin, flat } from '../core/sdk.js';
import type { Static } from '../core/sdk.js';
import type { answerQuestion } from '../core/catalogue.js';
import { pluginHarness } from '../core/testing/index.js';

const config = {
  baseUrl: { type: 'url', description: 'Base URL.', default: 'https://typed.example' },
  apiKey: { type: 'secret', description: 'Key.', required: true },
  timeoutMs: { type: 'integer', description: 'Timeout, ms.', default: 1500 },
  model: { type: 'string', description: 'Model, when set.' },
} as const;

const needString = (s: string) => s;
const needNumber = (n: number) => n;

const echo = defineEndpoint({
  operation: 'echo',
  title: 'Settings echo',
  summary: 'Answers the settings its handler sees.',
  config,
  input: Type.Object({}),
  output: Type.Object({
    baseUrl: Type.String({ description: 'Base URL seen.' }),
    apiKey: Type.String({ description: 'Key seen.' }),
    timeoutMs: Type.Number({ description: 'Timeout seen.' }),
    model: Type.Union([Type.String(), Type.Null()], { description: 'Model seen.' }),
  }),
  cost: flat(1),
  async run(_input, ctx) {
    // @ts-expect-error a setting with neither a default nor `required` may be absent
    needString(ctx.config.model);
    return { baseUrl: needString(ctx.config.baseUrl), apiKey: needString(ctx.config.apiKey), timeoutMs: needNumber(ctx.config.timeoutMs), model: ctx.config.model ?? null };
  },
});

const plugin = definePlugin({ id: 'typed_settings', apiVersion: 1, title: 'typed_settings', summary: 'Typed settings.', config, endpoints: [echo] });

// The catalogue's `recency` is the union its validator enforces, not any string.
type Recency = NonNullable<Static<typeof answerQuestion.input>['recency']>;
const recency: Recency = 'day';
// @ts-expect-error a period the validator refuses is refused by the type too
const notRecency: Recency = 'decade';
void [recency, notRecency];

const h = await pluginHarness(plugin, { env: { TYPED_SETTINGS_API_KEY: 'k-1' } });
after(() => h.close());

test('a handler receives defaults and required settings parsed, and an unset one as undefined', async () => {
  const r = await h.endpoint('echo', {});
  assert.deepEqual(r.data, { baseUrl: 'https://typed.example', apiKey: 'k-1', timeoutMs: 1500, model: null });
});
