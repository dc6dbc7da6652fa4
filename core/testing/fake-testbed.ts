/**
 * The set-up every provider test repeats (issue 29): start the plugin's fake before the file's
 * tests, register the plugin on it through the real executor, close both afterwards. After each
 * test the fake is `reset()` (failure switches off, state as declared; the request log stays), so
 * a test that breaks the fake needs no `try … finally` of its own.
 */
import { before, after, afterEach } from 'node:test';
import type { PluginDef } from '../plugin/types.js';
import { pluginHarness, type HarnessOptions, type PluginHarness } from './harness.js';
import type { FakeUpstream } from './fake-upstream.js';

/** The running fake and the harness on it, filled in before the first test. */
export interface FakeTestbed<F> {
  readonly fake: F;
  readonly h: PluginHarness;
  /** Another harness on the same fake with these settings over the fake's (a shorter deadline, a pinned model); closed with the file. */
  harness(env: Record<string, string>): Promise<PluginHarness>;
}

/**
 * Registers `before`/`afterEach`/`after` hooks that start `start()` and a harness of `plugin`
 * pointed at it (`fake.env`, plus `options` or what `options(fake)` returns, e.g. faster polling).
 */
export function withFake<F extends Pick<FakeUpstream, 'env' | 'close'> & Partial<Pick<FakeUpstream, 'reset'>>>(plugin: PluginDef<any, any>, start: () => Promise<F>, options: HarnessOptions | ((fake: F) => HarnessOptions) = {}): FakeTestbed<F> {
  let fake: F | undefined;
  let h: PluginHarness | undefined;
  let extra: HarnessOptions = {};
  const more: PluginHarness[] = [];
  before(async () => {
    fake = await start();
    extra = typeof options === 'function' ? options(fake) : options;
    h = await pluginHarness(plugin, { ...extra, env: { ...fake.env, ...(extra.env ?? {}) } });
  });
  afterEach(() => fake?.reset?.());
  after(async () => {
    for (const one of more.splice(0)) await one.close();
    await h?.close();
    await fake?.close();
  });
  const running = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`withFake: the ${what} starts in before(); use it inside a test.`);
    return value;
  };
  return {
    get fake() {
      return running(fake, 'fake');
    },
    get h() {
      return running(h, 'harness');
    },
    async harness(env) {
      const one = await pluginHarness(plugin, { ...extra, env: { ...running(fake, 'fake').env, ...(extra.env ?? {}), ...env } });
      more.push(one);
      return one;
    },
  };
}
