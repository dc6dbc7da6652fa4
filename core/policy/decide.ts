/**
 * The one policy decision used by discovery and execution alike (design principle: "the same
 * `decide` filters v2 search/details and gates execution"). Most specific rule wins: the exact
 * id, then the provider, then the key's `*`, then the deployment default in the same order,
 * then allow. Within one level a block beats an allow.
 */
import type { Policy } from './types.js';

type Verdict = 'allow' | 'block' | undefined;

function rule(policy: Policy | undefined, id: string): Verdict {
  if (!policy) return undefined;
  if (policy.block?.includes(id)) return 'block';
  if (policy.allow?.includes(id)) return 'allow';
  return undefined;
}

/** What a call touches: a capability, a provider endpoint, or both (a capability run through a provider). */
export interface Target {
  capability?: string;
  endpoint?: string;
  provider?: string;
}

/** Which rule settled a decision: whose policy, the id it names, and what it said; `default` when none did. */
export interface Decision {
  allowed: boolean;
  by: 'key' | 'deployment' | 'default';
  /** The id of the deciding rule (an endpoint, provider, capability or `*`); absent for the default. */
  rule?: string;
}

/**
 * {@link decide} with its reason: the same walk, reporting which rule settled it (the console's
 * policy page shows it, so what the page says is what the key gets).
 */
export function explain(key: Policy | undefined, deployment: Policy | undefined, target: Target): Decision {
  // Asked for every provider of every call: most keys and deployments have no policy at all, and
  // the walk below allocates nothing, so a call without rules costs a few comparisons.
  return (key && level(key, 'key', target)) || (deployment && level(deployment, 'deployment', target)) || ALLOWED_BY_DEFAULT;
}

const ALLOWED_BY_DEFAULT: Readonly<Decision> = Object.freeze({ allowed: true, by: 'default' });

/** One policy's say on `target`, most specific rule first: endpoint, provider, capability, `*`. */
function level(policy: Policy, by: 'key' | 'deployment', target: Target): Decision | undefined {
  if (target.endpoint) {
    const v = rule(policy, target.endpoint);
    if (v) return { allowed: v === 'allow', by, rule: target.endpoint };
  }
  if (target.provider) {
    const v = rule(policy, target.provider);
    if (v) return { allowed: v === 'allow', by, rule: target.provider };
  }
  if (target.capability) {
    const v = rule(policy, target.capability);
    if (v) return { allowed: v === 'allow', by, rule: target.capability };
  }
  const star = rule(policy, '*');
  return star ? { allowed: star === 'allow', by, rule: '*' } : undefined;
}

/**
 * Decides whether `key` may use `target` given the deployment default. For a capability run
 * through a provider, an explicit rule on the capability lets its providers through unless they
 * are named in a block rule themselves.
 */
export function decide(key: Policy | undefined, deployment: Policy | undefined, target: Target): boolean {
  return explain(key, deployment, target).allowed;
}

/**
 * True when a rule names the capability itself and blocks it. Unlike {@link decide} with only a
 * capability, `*` does not count: under `{ allow: ['search_a'], block: ['*'] }` the capabilities
 * search_a serves stay usable through it. The key's rules come first, as in `decide`: a key that
 * names the capability decides; a key with allow rules of its own (`*`, a provider, an endpoint)
 * is judged per provider by `decide`, where those rules outrank the deployment's capability rule;
 * only for a key without any allow rule does the deployment's block of the capability settle it.
 */
export function capabilityBlocked(key: Policy | undefined, deployment: Policy | undefined, capability: string): boolean {
  const own = rule(key, capability);
  if (own) return own === 'block';
  if (key?.allow?.length) return false;
  return rule(deployment, capability) === 'block';
}

/** Whether a key may use a capability: not blocked by name, and through at least one allowed provider (or by the `*` rules when it has none). */
export function capabilityAllowed(key: Policy | undefined, deployment: Policy | undefined, capability: string, providersAllowed: number, providers: number): boolean {
  if (capabilityBlocked(key, deployment, capability)) return false;
  return providers === 0 ? decide(key, deployment, { capability }) : providersAllowed > 0;
}

/** Checks the shape of a policy sent by an admin; returns an error text or undefined. */
export function policyProblem(p: unknown): string | undefined {
  if (p === undefined) return undefined;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return 'policy must be an object with optional allow and block arrays.';
  for (const [k, v] of Object.entries(p)) {
    if (k !== 'allow' && k !== 'block') return `policy has an unknown field '${k}'; use allow and block.`;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x.length === 0 || x.length > 128)) return `policy.${k} must be an array of ids.`;
  }
  return undefined;
}
