/**
 * Discovery over the registry for `/api/v2/search` and `/api/v2/details`, and the MCP lane's
 * `search` and `details`. What a key sees is the one visibility rule (`core/policy/visibility.ts`)
 * for the asking lane, built on the same policy decision as execution, so a key never discovers
 * what it may not run; v2 lists no v1-only entry (spec §9.1), MCP does.
 */
import type { Policy } from '../policy/types.js';
import { Access } from '../policy/access.js';
import { providerVisibleIn, visibleIn, type Lane, type LaneTables } from '../policy/visibility.js';
import { queryStems, stemsOf, wordsOf } from './search-terms.js';
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
  /** Input field names (matched by search, not shown). */
  fields?: string[];
  /** Capabilities an endpoint serves (ranking puts it after them). */
  serves?: string[];
}

/** Top-level input field names of a schema. */
function fieldsOf(schema: unknown): string[] {
  return Object.keys(((schema as { properties?: object } | undefined)?.properties ?? {}) as object);
}

/** Discovery for one key in one lane. */
export class Discovery {
  /** The key's access, as execution judges it. */
  readonly access: Access;

  constructor(
    private readonly registry: Registry,
    policy: Policy | undefined,
    /** The lane asking (v2 unless told). */
    readonly lane: Lane = 'v2',
    /** The v1 table's targets, for lanes that offer v1-only jobs (MCP). */
    readonly tables?: LaneTables,
  ) {
    this.access = new Access(policy, registry.defaultPolicy);
  }

  private allowedProviders(cap: RegisteredCapability) {
    return this.access.providers(cap);
  }

  /** True when the lane offers the capability and the key may use it through a provider (or it has none yet). */
  capabilityVisible(cap: RegisteredCapability): boolean {
    return visibleIn(this.lane, cap, this.access, this.tables);
  }

  /** True when the lane offers the endpoint and the key may call it. */
  endpointVisible(ep: RegisteredEndpoint): boolean {
    return visibleIn(this.lane, ep, this.access, this.tables);
  }

  /** True when at least one of the provider's endpoints is visible. */
  providerVisible(p: RegisteredPlugin): boolean {
    return providerVisibleIn(this.lane, p, this.access, this.tables);
  }

  /** Every entry the key may see. */
  entries(type?: EntryType): CatalogEntry[] {
    const out: CatalogEntry[] = [];
    if (!type || type === 'capability') {
      for (const cap of this.registry.capabilities.values()) {
        if (!this.capabilityVisible(cap)) continue;
        out.push({ type: 'capability', id: cap.id, title: cap.def.title, summary: cap.def.summary, tags: [...(cap.def.tags ?? []), ...(cap.def.aliases ?? [])], configured: this.allowedProviders(cap).some((b) => b.plugin.configured), fields: fieldsOf(cap.def.input) });
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
        out.push({ type: 'endpoint', id: ep.id, title: ep.def.title, summary: ep.def.summary, tags: [...(ep.def.tags ?? []), ...ep.capabilities], configured: ep.plugin.configured, fields: fieldsOf(ep.def.input), serves: ep.capabilities });
      }
    }
    return out;
  }

  /**
   * Keyword search, best first (issue 19): stems of the query's meaningful words matched against
   * ids, titles, tags, input field names and summaries; an entry must match at least one of them
   * (stop words alone match nothing). For an intent a capability serves, the capability comes first
   * and the provider endpoints serving it follow it. An empty query lists everything.
   */
  search(query: string, type: EntryType | undefined, limit: number): (CatalogEntry & { score: number })[] {
    const exact = query.trim().toLowerCase();
    const listAll = wordsOf(query).length === 0;
    const terms = queryStems(query);
    // An alias (`crawl` → `crawl_site`) counts as the capability's own id.
    const aliased = this.registry.capability(exact)?.id;
    const scored = this.entries(type).map((e) => {
      if (listAll) return { ...e, score: 0 };
      // A provider's name is a label, not a description of the job: `transcript_a.videosite_channel_videos`
      // is about channel videos, so its provider part only counts like a tag.
      const [owner, operation] = e.type === 'endpoint' ? e.id.split('.') : [undefined, e.id];
      const id = stemsOf(operation ?? e.id);
      const title = stemsOf(owner ? e.title.split(owner).join(' ') : e.title);
      const tags = [...e.tags, ...(owner ? [owner] : [])].flatMap(stemsOf);
      const fields = (e.fields ?? []).flatMap(stemsOf);
      const summary = stemsOf(e.summary);
      let score = 0;
      let matched = 0;
      if (e.id.toLowerCase() === exact || (e.type === 'capability' && e.id === aliased)) score += 100;
      for (const t of terms) {
        const part = (id.includes(t) ? 10 : 0) + (title.includes(t) ? 6 : 0) + (tags.includes(t) ? 5 : 0) + (fields.includes(t) ? 3 : 0) + (summary.includes(t) ? 2 : 0);
        if (part > 0) matched += 1;
        score += part;
      }
      // Matching more of the query's words beats matching one word in many places.
      if (terms.length > 1) score += (20 * matched) / terms.length;
      return { ...e, score: matched > 0 || score >= 100 ? score : 0 };
    });
    const hits = listAll ? scored : scored.filter((e) => e.score > 0);
    // A provider endpoint ranks just behind the best capability it serves that matched too.
    const capScore = new Map(hits.filter((e) => e.type === 'capability').map((e) => [e.id, e.score]));
    for (const e of hits) {
      const best = Math.max(-Infinity, ...(e.serves ?? []).map((c) => capScore.get(c) ?? -Infinity));
      if (Number.isFinite(best) && e.score >= best) e.score = best - 0.001;
    }
    const order: Record<EntryType, number> = { capability: 0, endpoint: 1, provider: 2 };
    hits.sort((a, b) => b.score - a.score || order[a.type] - order[b.type] || a.id.localeCompare(b.id));
    return hits.slice(0, limit).map(({ fields: _f, serves: _s, ...e }) => ({ ...e, score: Math.round(e.score * 100) / 100 }));
  }
}
