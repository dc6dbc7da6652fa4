/** Per-key (and deployment default) allow/block lists (design: "Keys, credits, limits, policy"). */

/**
 * Entries are ids: a provider (`search_a`), an endpoint (`search_a.news`), a capability
 * (`search_news`) or `*` for everything.
 */
export interface Policy {
  allow?: string[];
  block?: string[];
}
