/** Read-only lookups over the frozen registry. */
import type { Policy } from '../policy/types.js';
import type { RegisteredCapability, RegisteredEndpoint, RegisteredPlugin, ResolvedTarget } from './types.js';

/** The frozen registry. */
export class Registry {
  constructor(
    readonly plugins: ReadonlyMap<string, RegisteredPlugin>,
    readonly capabilities: ReadonlyMap<string, RegisteredCapability>,
    private readonly aliases: ReadonlyMap<string, string>,
    readonly endpoints: ReadonlyMap<string, RegisteredEndpoint>,
    readonly defaultPolicy: Policy,
  ) {
    Object.freeze(this);
  }

  /** A capability by id or alias (`crawl` → `crawl_site`). */
  capability(id: string): RegisteredCapability | undefined {
    return this.capabilities.get(this.aliases.get(id) ?? id);
  }

  /** A provider endpoint by `<provider>.<operation>`. */
  endpoint(id: string): RegisteredEndpoint | undefined {
    return this.endpoints.get(id);
  }

  /** Resolves `capability:<id>` / `endpoint:<id>` (the v1 table's notation) or a typed id. */
  resolve(type: 'capability' | 'endpoint', id: string): ResolvedTarget | undefined {
    if (type === 'capability') {
      const capability = this.capability(id);
      return capability ? { type, capability } : undefined;
    }
    const endpoint = this.endpoint(id);
    return endpoint ? { type, endpoint } : undefined;
  }

  /** Aliases as `alias → id`. */
  aliasList(): [string, string][] {
    return [...this.aliases.entries()];
  }

  /** Stops every plugin that has a `close` hook. */
  async close(): Promise<void> {
    await Promise.allSettled(
      [...this.plugins.values()].filter((p) => p.def.close && p.state !== undefined).map(async (p) => p.def.close!(p.state)),
    );
  }
}
