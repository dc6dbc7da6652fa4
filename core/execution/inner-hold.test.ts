/**
 * Inner calls' measured work (issue 24, "price what costs"), on made-up capabilities: a `ctx.call`
 * whose handler grows its hold (`ctx.reserveFor`) grows its caller's hold by what its own rule adds
 * for those units, and is charged with its caller once served; through a call in between too; a
 * failed inner call, or one whose caller failed, is held for but never charged; a growth asked
 * after the call ended is refused. The real-server paths (scrape, extract-document) are in
 * test/inner-call-pricing.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Type, defineCapability, defineEndpoint, definePlugin, flat, type CostRule } from '../sdk.js';
import { engineHarness, type PluginHarness } from '../testing/engine-harness.js';

/** 20 a call plus 5 a page (at most 100), one page held up front: doc-to-text's shape. */
const perPage: CostRule<{ pages: number }> = {
  describe: { kind: 'custom', note: '20 + 5 per page' },
  reserve: () => 20 + 5 * 100,
  initial: () => 25,
  settle: (_i, units) => 20 + 5 * Math.min(units.pages ?? 0, 100),
};

const PagesIn = Type.Object({ pages: Type.Integer({ description: 'Pages.' }), fail: Type.Optional(Type.Boolean({ description: 'Fail after reading.' })) });
const Mode = Type.Object({ mode: Type.String({ description: 'What the caller does.' }) });
const Out = Type.Object({ note: Type.String({ description: 'What happened.' }) });

/** Opened by the stray-call test once its caller has been charged. */
let strayGate: () => void = () => {};
let strayOpen: Promise<void> = Promise.resolve();
let strayGrowth: Promise<unknown> = Promise.resolve();

const capabilities = [
  defineCapability({ id: 'read_pages', title: 'Read pages', summary: 'Reads pages.', input: PagesIn, output: Out, cost: perPage }),
  defineCapability({ id: 'middle', title: 'Middle', summary: 'Reads pages for its caller.', input: Mode, output: Out, cost: flat(2) }),
  defineCapability({ id: 'outer', title: 'Outer', summary: 'Calls the others.', input: Mode, output: Out, cost: flat(10) }),
];

const plugin = definePlugin({
  id: 'inner_p',
  apiVersion: 1,
  title: 'Inner calls',
  summary: 'Test provider.',
  endpoints: [
    defineEndpoint({
      operation: 'read',
      title: 'Read',
      summary: 'Reads pages.',
      input: PagesIn,
      output: Out,
      cost: perPage,
      async run(i, ctx) {
        await ctx.reserveFor({ pages: i.pages });
        ctx.usage.add('pages', i.pages);
        if (i.fail) throw new Error('reader failed after its pages were held');
        return { note: `read ${i.pages}` };
      },
    }),
    defineEndpoint({
      operation: 'middle',
      title: 'Middle',
      summary: 'Reads pages for its caller.',
      input: Mode,
      output: Out,
      cost: flat(2),
      async run(i, ctx) {
        if (i.mode === 'stray inner') await strayOpen;
        await ctx.call('read_pages', { pages: 3 });
        if (i.mode === 'middle fails') throw new Error('middle failed after its inner call was served');
        return { note: 'middle' };
      },
    }),
    defineEndpoint({
      operation: 'outer',
      title: 'Outer',
      summary: 'Calls the others.',
      input: Mode,
      output: Out,
      cost: flat(10),
      async run(i, ctx) {
        if (i.mode === 'one') await ctx.call('read_pages', { pages: 3 });
        if (i.mode === 'twice') await Promise.all([ctx.call('read_pages', { pages: 3 }), ctx.call('read_pages', { pages: 4 })]);
        if (i.mode === 'inner fails') await ctx.call('read_pages', { pages: 3, fail: true }).catch(() => undefined);
        if (i.mode === 'through middle' || i.mode === 'middle fails') await ctx.call('middle', i).catch(() => undefined);
        if (i.mode === 'stray') {
          // Not awaited: the inner call asks to grow the hold only once this call has been charged.
          strayOpen = new Promise<void>((r) => (strayGate = r));
          strayGrowth = ctx.call('middle', { mode: 'stray inner' }).catch((err: unknown) => err);
        }
        return { note: i.mode };
      },
    }),
  ],
  implements: [
    { capability: 'read_pages', endpoint: 'read' },
    { capability: 'middle', endpoint: 'middle' },
    { capability: 'outer', endpoint: 'outer' },
  ],
});

describe('inner calls grow and are charged with their caller', () => {
  let h: PluginHarness;
  before(async () => {
    h = await engineHarness(plugin, {}, capabilities);
  });
  after(() => h.close());

  const outer = (mode: string) => h.capability('outer', { mode });

  it('an inner call that measured 3 pages: its caller holds and pays 10 + 5 × 3 (not its 20 base)', async () => {
    const r = await outer('one');
    assert.deepEqual([r.reserved, r.credits], [25, 25]);
  });

  it('two inner calls at once each add their pages, exactly', async () => {
    const r = await outer('twice');
    assert.deepEqual([r.reserved, r.credits], [10 + 15 + 20, 10 + 15 + 20]);
  });

  it('a failed inner call is held for but not charged', async () => {
    const r = await outer('inner fails');
    assert.deepEqual([r.reserved, r.credits], [25, 10]);
  });

  it('through a call in between: charged when every call between is served, not when one failed', async () => {
    const served = await outer('through middle');
    assert.deepEqual([served.reserved, served.credits], [25, 25], 'the middle call pays no base of its own, only the pages');
    const failed = await outer('middle fails');
    assert.deepEqual([failed.reserved, failed.credits], [25, 10]);
  });

  it('an inner call still running when its caller was charged cannot grow the hold', async () => {
    const r = await outer('stray');
    assert.deepEqual([r.reserved, r.credits], [10, 10]);
    strayGate();
    const err = (await strayGrowth) as Error & { status?: number };
    assert.equal(err.status, 500, String(err));
  });
});
