/**
 * The set-up every provider test repeats (issue 29): start the plugin's fake before the file's
 * tests, register the plugin on it through the real executor, close both afterwards.
 */
import { before, after } from 'node:test';
import type { PluginDef } from '../plugin/types.js';
import { pluginHarness, type HarnessOptions, type PluginHarness } from './harness.js';
import type { FakeUpstream } from './fake-upstream.js';

/** The running fake and the harness on it, filled in before the first test. */
export interface FakeTestbed<F> {
  readonly fake: F;
  readonly h: PluginHarness;
}

/**
 * Registers `before`/`after` hooks that start `start()` and a harness of `plugin` pointed at it
 * (`fake.env`, plus `options` or what `options(fake)` returns, e.g. faster polling).
 */
export function withFake<F extends Pick<FakeUpstream, 'env' | 'close'>>(plugin: PluginDef<any, any>, start: () => Promise<F>, options: HarnessOptions | ((fake: F) => HarnessOptions) = {}): FakeTestbed<F> {
  let fake: F | undefined;
  let h: PluginHarness | undefined;
  before(async () => {
    fake = await start();
    const extra = typeof options === 'function' ? options(fake) : options;
    h = await pluginHarness(plugin, { ...extra, env: { ...fake.env, ...(extra.env ?? {}) } });
  });
  after(async () => {
    await h?.close();
    await fake?.close();
  });
  return {
    get fake() {
      if (!fake) throw new Error('withFake: the fake starts in before(); use it inside a test.');
      return fake;
    },
    get h() {
      if (!h) throw new Error('withFake: the harness starts in before(); use it inside a test.');
      return h;
    },
  };
}
