/**
 * Which plugins exist (one line each) and the order providers are tried per capability.
 * Who may use them is key policy (admin API), never this list.
 */
import type { ServiceConfig } from './core/registry/types.js';

const config: ServiceConfig = {
  plugins: {
    capabilities: () => import('./plugins/capabilities/index.js'),
  },
  providerOrder: {},
  defaultPolicy: {},
  disabled: [],
};

export default config;
