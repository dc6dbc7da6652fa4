/**
 * The operator's route alias table (issue 28): `V1_ROUTE_ALIASES` names a JSON file
 * `{ "/api/v1/<alias>": "/api/v1/<route we serve>" }`, so clients that spell a route differently
 * work by configuration. An alias serves exactly what its route serves (method, input, price,
 * usage rows naming the route's target). The file is read and checked at boot; every problem is
 * reported together and stops boot, naming the variable.
 */
import { readFileSync } from 'node:fs';
import type { LegacyRoute } from '../legacy-routes.js';

/** An alias row: the route it copies, under another path. */
export interface AliasRoute extends LegacyRoute {
  /** The served path this alias stands for. */
  aliasOf: string;
}

/** Paths of the v1 lane that are not rows of the table but are served all the same. */
const OTHER_V1_PATHS = ['/api/v1/key-connection'];
const PATH = /^\/api\/v1\/[A-Za-z0-9._~\-/]+$/;

/**
 * The alias rows of the file `file` (none when unset), checked against `routes`: each alias is
 * a plain `/api/v1/…` path that no route already has, and each target is a path of `routes`.
 */
export function loadRouteAliases(file: string | undefined, routes: readonly LegacyRoute[]): AliasRoute[] {
  if (!file?.trim()) return [];
  let table: unknown;
  try {
    table = JSON.parse(readFileSync(file.trim(), 'utf8'));
  } catch (err) {
    throw new Error(`V1_ROUTE_ALIASES: cannot read '${file}' as JSON: ${(err as Error).message}`);
  }
  if (!table || typeof table !== 'object' || Array.isArray(table)) throw new Error(`V1_ROUTE_ALIASES: '${file}' must hold a JSON object { "/api/v1/<alias>": "/api/v1/<route>" }.`);
  const served = new Set([...routes.map((r) => r.path), ...OTHER_V1_PATHS]);
  const problems: string[] = [];
  const rows: AliasRoute[] = [];
  for (const [alias, target] of Object.entries(table as Record<string, unknown>)) {
    if (!PATH.test(alias) || alias.includes('//') || alias.endsWith('/')) {
      problems.push(`'${alias}' is not a plain /api/v1/… path (letters, digits, '.', '_', '~', '-' and '/'; no parameters).`);
      continue;
    }
    if (served.has(alias)) {
      problems.push(`'${alias}' shadows a route the service serves itself; remove it.`);
      continue;
    }
    if (typeof target !== 'string') {
      problems.push(`'${alias}' must map to a route path string.`);
      continue;
    }
    const copies = routes.filter((r) => r.path === target);
    if (copies.length === 0) {
      problems.push(`'${alias}' points to '${target}', which this service does not serve (an alias must point to a route of the v1 table).`);
      continue;
    }
    for (const r of copies) rows.push({ method: r.method, path: alias, target: r.target, aliasOf: r.path });
  }
  if (problems.length) throw new Error(`V1_ROUTE_ALIASES (${file}): ${problems.join(' ')}`);
  return rows;
}
