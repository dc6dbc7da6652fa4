/** What every engine factory receives from the composition root. */
import type { PluginLogger } from '../plugin/types.js';
import type { ByteBudget } from './http/byte-budget.js';

import type { Queryable } from '../storage/db.js';

/** Service-wide settings an engine may need. */
export interface EngineOptions {
  /** Root of the embedded data (files, profiles, sandboxes live below it). */
  dataDir: string;
  /** Base of absolute URLs handed to clients, e.g. `http://127.0.0.1:3000`. */
  publicBaseUrl: () => string;
  /** The process environment as read at boot (engines read their own settings from it). */
  env: Record<string, string | undefined>;
  log: PluginLogger;
  /** The service's in-flight byte budget, shared with request bodies; URL downloads count in it. */
  bytesInFlight?: ByteBudget;

  /** The service's database, for engines that keep state there (the page store); absent in plugin harnesses. */
  db?: Queryable;
}
