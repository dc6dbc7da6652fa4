/**
 * `location` checked against the search-location list in use (issue 28): the search and reviews
 * providers forwarded any text unchecked, so a typo cost an upstream call and came back as the
 * provider's own error, or silently as results for somewhere else. The list is whatever serves
 * `engine_locations` in this deployment (the shipped `locations` plugin), read through
 * `ctx.call` (free, under the caller's key policy); without one, nothing is checked.
 */
import { InputError, InternalError, NotConfiguredError, ProviderNotAllowedError, type RunContext } from '../sdk.js';

interface Listed {
  name: string;
  canonicalName: string;
}

/** Lower case, no diacritics, no spaces around commas: how names are compared. */
export function foldLocation(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s*,\s*/g, ',').replace(/\s+/g, ' ').trim();
}

/** Edit distance (insertions, deletions, substitutions), capped at `max` to stay cheap. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, row[j]!);
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length]!;
}

/** The `count` listed names closest to `wanted` (by the canonical or the short name). */
export function closestLocations(list: readonly Listed[], wanted: string, count = 3): string[] {
  const w = foldLocation(wanted);
  const max = Math.max(3, Math.ceil(w.length / 2));
  return list
    .map((l) => ({ name: l.canonicalName, d: Math.min(distance(w, foldLocation(l.canonicalName), max), distance(w.split(',')[0]!, foldLocation(l.name), max) + 1) }))
    .filter((x) => x.d <= max)
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name, 'en'))
    .slice(0, count)
    .map((x) => x.name);
}

/**
 * Refuses (400, free) a `location` that is not a canonical name of the list in use, naming the
 * closest ones. Location codes (`2840`) and coordinates pass: they are not names.
 */
export async function checkLocation(ctx: Pick<RunContext, 'call' | 'log'>, location: string | undefined): Promise<void> {
  const wanted = location?.trim();
  if (!wanted || /^[-\d.,\s]+$/.test(wanted)) return;
  let list: Listed[];
  try {
    list = (await ctx.call<{ locations: Listed[] }>('engine_locations', {})).locations;
  } catch (err) {
    // No list served here (or a registry without the capability), or the key may not read it:
    // the provider judges the name itself.
    if (err instanceof NotConfiguredError || err instanceof ProviderNotAllowedError || err instanceof InternalError) {
      ctx.log.debug({ err }, 'location not checked: no search-location list available');
      return;
    }
    throw err;
  }
  const folded = foldLocation(wanted);
  if (list.some((l) => foldLocation(l.canonicalName) === folded)) return;
  const near = closestLocations(list, wanted);
  const hint = near.length ? ` Closest: ${near.map((n) => `'${n}'`).join(', ')}.` : '';
  throw new InputError(`Unknown location '${wanted.slice(0, 200)}'.${hint} GET /api/v1/engine-locations lists the accepted names.`);
}
