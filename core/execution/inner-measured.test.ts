/**
 * `ctx.measured` (issue 24, "price what costs"): an inner capability tells the capability that
 * runs it (`ctx.call(id, input, { onMeasured })`) what it measured before its costly work, so the
 * caller holds its own price for it first, or refuses, and the work never starts. Made-up
 * capabilities; the real-server path (extract-document over doc_text) is in
 * test/extract-document-page-hold.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InputError, Type, defineCapability, defineEndpoint, definePlugin, flat, perUnit } from '../sdk.js';
import { engineHarness, type PluginHarness } from '../testing/engine-harness.js';

const Pages = Type.Object({ pages: Type.Integer({ description: 'Pages.' }) });
const Mode = Type.Object({ mode: Type.String({ description: 'What the caller does.' }), pages: Type.Integer({ description: 'Pages.' }) });
const Out = Type.Object({ note: Type.String({ description: 'What happened.' }) });

/** What happened, in order, in the current test. */
let events: string[] = [];

/** 10 per page, at most 100 pages, one held up front: extract-document's shape. */
const perPage = { ...perUnit<{ pages: number }>({ unit: 'pages', credits: 10, max: () => 100 }), initial: () => 10 };

const capabilities = [
  defineCapability({ id: 'count_then_read', title: 'Count then read', summary: 'Counts, then reads.', input: Pages, output: Out, cost: flat(0) }),
  defineCapability({ id: 'reader', title: 'Reader', summary: 'Reads through the other.', input: Mode, output: Out, cost: perPage }),
];

const plugin = definePlugin({
  id: 'measured_p',
  apiVersion: 1,
  title: 'Measured',
  summary: 'Test provider.',
  endpoints: [
    defineEndpoint({
      operation: 'count_then_read',
      title: 'Count then read',
      summary: 'Counts, then reads.',
      input: Pages,
      output: Out,
      cost: flat(0),
      async run(i, ctx) {
        await ctx.measured({ pages: i.pages });
        events.push('costly work');
        return { note: `read ${i.pages}` };
      },
    }),
    defineEndpoint({
      operation: 'reader',
      title: 'Reader',
      summary: 'Reads through the other.',
      input: Mode,
      output: Out,
      cost: perPage,
      async run(i, ctx) {
        if (i.mode === 'direct') {
          // Nobody runs this call through ctx.call: telling is a no-op.
          await ctx.measured({ pages: i.pages });
          events.push('told nobody');
        }
        const onMeasured = async (units: Record<string, number>) => {
          events.push(`heard ${units.pages}`);
          if ((units.pages ?? 0) > 50) throw new InputError('Too many pages.');
          await ctx.reserveFor({ pages: units.pages ?? 0 });
        };
        const r = await ctx.call<{ note: string }>('count_then_read', { pages: i.pages }, i.mode === 'deaf' ? undefined : { onMeasured });
        ctx.usage.add('pages', i.pages);
        return r;
      },
    }),
  ],
  implements: [
    { capability: 'count_then_read', endpoint: 'count_then_read' },
    { capability: 'reader', endpoint: 'reader' },
  ],
});

describe('an inner call tells its caller what it measured before its work', () => {
  let h: PluginHarness;
  before(async () => {
    h = await engineHarness(plugin, {}, capabilities);
  });
  after(() => h.close());

  it('the caller hears the count before the work and holds its price for it then', async () => {
    events = [];
    const r = await h.capability('reader', { mode: 'listen', pages: 7 });
    assert.deepEqual(events, ['heard 7', 'costly work']);
    assert.deepEqual([r.reserved, r.credits], [70, 70]);
  });

  it('what the caller throws ends the inner call before its work, and the caller with it', async () => {
    events = [];
    await assert.rejects(h.capability('reader', { mode: 'listen', pages: 60 }), (e: { status: number; message: string }) => e.status === 400 && e.message === 'Too many pages.');
    assert.deepEqual(events, ['heard 60']);
  });

  it('a caller that does not listen, and a call nobody runs, change nothing', async () => {
    events = [];
    const deaf = await h.capability('reader', { mode: 'deaf', pages: 60 });
    assert.equal(deaf.data.note, 'read 60');
    const direct = await h.capability('reader', { mode: 'direct', pages: 2 });
    assert.equal(direct.credits, 20);
    assert.deepEqual(events, ['costly work', 'told nobody', 'heard 2', 'costly work']);
  });
});
