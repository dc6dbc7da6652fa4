/**
 * The plugin author's harness (issue 11): the plugin registered beside the real capability
 * catalogue exactly as at boot, every call through the real executor. The work is
 * `engine-harness.ts`'s; this file only adds the catalogue, so the engine's own tests, which
 * reach the harness without it, never load the catalogue (issue 29).
 */
import type { PluginDef } from '../plugin/types.js';
import { catalogue } from '../catalogue.js';
import { engineHarness, type HarnessOptions, type PluginHarness } from './engine-harness.js';

export type { HarnessOptions, HarnessResult, PluginHarness } from './engine-harness.js';

/** Registers `plugin` (and `opts.plugins`) with the catalogue and returns a caller. */
export function pluginHarness(plugin: PluginDef<any, any>, opts: HarnessOptions = {}): Promise<PluginHarness> {
  return engineHarness(plugin, opts, catalogue);
}
