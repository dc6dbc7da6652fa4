/** Service configurations for lane tests: the capability catalogue plus a few plugins of plugins.config.ts. */
import type { ServiceConfig } from '../../core/registry/types.js';
import deployment from '../../plugins.config.js';

/** The catalogue and the plugins `ids` (as loaded by the deployment), with an optional provider order. */
export function pluginsConfig(ids: string[], providerOrder: ServiceConfig['providerOrder'] = {}): ServiceConfig {
  const plugins: ServiceConfig['plugins'] = { capabilities: deployment.plugins.capabilities! };
  for (const id of ids) {
    const load = deployment.plugins[id];
    if (!load) throw new Error(`plugins.config.ts does not list ${id}`);
    plugins[id] = load;
  }
  return { plugins, providerOrder, defaultPolicy: {}, disabled: [] };
}
