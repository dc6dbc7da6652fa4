/**
 * Discovery over the registry for `/api/v2/search` and `/api/v2/details`. Uses the same policy
 * decision as execution, so a key never discovers what it may not run. Legacy (v1-only) entries
 * are never listed (spec §9.1).
 */
import type { Policy } from '../policy/types.js';
import { Access } from '../policy/access.js';
import type { Registry } from './registry.js';
import type { RegisteredCapability, RegisteredEndpoint, RegisteredPlugin } from './types.js';

/** The kinds discovery knows. */
export type EntryType = 'capability' | 'provider' | 'endpoint';

/** One discoverable entry. */
export interface CatalogEntry {
  type: EntryType;
  id: string;
  title: string;
  summary: string;
  tags: string[];
  /** Usable now: a configured provider exists (capability), the provider has its settings (provider, endpoint). */
  configured: boolean;
}

function words(s: string): string[] {
  return s.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

/** Discovery for one key. */
export class Discovery {
  /** The key's access, as execution judges it. */
  readonly access: Access;

  constructor(private readonly registry: Registry, policy: Policy | undefined) {
    this.access = new Access(policy, registry.defaultPolicy);
  }

  private allowedProviders(cap: RegisteredCapability) {
    return this.access.providers(cap);
  }

  /** True when the key may use the capability through at least one provider (or it has none yet). */
  capabilityVisible(cap: RegisteredCapability): boolean {
    if (cap.def.visibility === 'legacy') return false;
    return this.access.capability(cap);
  }

  endpointVisible(ep: RegisteredEndpoint): boolean {
    return ep.visibility !== 'legacy' && this.access.endpoint(ep);
  }

  providerVisible(p: RegisteredPlugin): boolean {
    return p.endpoints.some((e) => this.endpointVisible(e));
  }

  /** Every entry the key may see. */
  entries(type?: EntryType): CatalogEntry[] {
    const out: CatalogEntry[] = [];
    if (!type || type === 'capability') {
      for (const cap of this.registry.capabilities.values()) {
        if (!this.capabilityVisible(cap)) continue;
        out.push({ type: 'capability', id: cap.id, title: cap.def.title, summary: cap.def.summary, tags: [...(cap.def.tags ?? []), ...(cap.def.aliases ?? [])], configured: this.allowedProviders(cap).some((b) => b.plugin.configured) });
      }
    }
    if (!type || type === 'provider') {
      for (const p of this.registry.plugins.values()) {
        if (!this.providerVisible(p)) continue;
        out.push({ type: 'provider', id: p.id, title: p.def.title, summary: p.def.summary, tags: p.def.tags ?? [], configured: p.configured });
      }
    }
    if (!type || type === 'endpoint') {
      for (const ep of this.registry.endpoints.values()) {
        if (!this.endpointVisible(ep)) continue;
        out.push({ type: 'endpoint', id: ep.id, title: ep.def.title, summary: ep.def.summary, tags: [...(ep.def.tags ?? []), ...ep.capabilities], configured: ep.plugin.configured });
      }
    }
    return out;
  }

  /** Keyword search: id, title, tags and summary matches, best first. An empty query lists everything. */
  search(query: string, type: EntryType | undefined, limit: number): (CatalogEntry & { score: number })[] {
    const terms = words(query);
    const exact = query.trim().toLowerCase();
    // An alias (`crawl` → `crawl_site`) counts as the capability's own id.
    const aliased = this.registry.capability(exact)?.id;
    const scored = this.entries(type).map((e) => {
      if (terms.length === 0) return { ...e, score: 0 };
      const id = e.id.toLowerCase();
      const idWords = words(e.id);
      const title = words(e.title);
      const tags = e.tags.flatMap(words);
      const summary = words(e.summary);
      let score = 0;
      if (id === exact || (e.type === 'capability' && e.id === aliased)) score += 100;
      for (const t of terms) {
        const stem = t.length > 4 ? t.replace(/s$/, '') : t;
        const hit = (ws: string[]) => ws.some((w) => w === t || w === stem || (stem.length >= 4 && w.startsWith(stem)));
        if (idWords.includes(t) || id.includes(t)) score += 10;
        if (hit(title)) score += 6;
        if (hit(tags)) score += 5;
        if (hit(summary)) score += 2;
      }
      return { ...e, score };
    });
    const hits = terms.length === 0 ? scored : scored.filter((e) => e.score > 0);
    const order: Record<EntryType, number> = { capability: 0, endpoint: 1, provider: 2 };
    hits.sort((a, b) => b.score - a.score || order[a.type] - order[b.type] || a.id.localeCompare(b.id));
    return hits.slice(0, limit);
  }
}
