/**
 * The usage filters and page of a usage or ledger listing, read from a query string: one reader
 * for the key's own lists (v2), the admin API and its CLI, none of which imports another lane.
 */
import { InputError } from '../core/errors.js';
import type { UsageQuery } from '../core/usage/usage-log.js';
import { pageQuery } from './query-paging.js';

/** Reads `page` and `limit` from the query string. */
export function paging(q: Record<string, unknown>): { page: number; limit: number } {
  return pageQuery(q, 50, 500);
}

/** Object types a usage filter may name: a row's own type, or `provider` (rows a provider served). */
const OBJECT_TYPES = ['capability', 'endpoint', 'operation', 'provider'];

/**
 * Parses the usage filters (issue 2 §10). `objectType=provider` is what the original service's CLI
 * offers: rows whose provider is `objectId` (or `provider`), or every provider-served row without
 * one (issue 19). Control characters cannot be stored or matched, so they are the caller's error.
 */
export function usageQuery(q: Record<string, unknown>): UsageQuery {
  const str = (name: string) => {
    const v = typeof q[name] === 'string' && q[name] ? (q[name] as string) : undefined;
    if (v !== undefined && /[\u0000-\u001f\u007f]/.test(v)) throw new InputError(`Invalid input: '${name}' must not contain control characters.`, { details: { field: name } });
    return v;
  };
  const statusRaw = str('status');
  let status: UsageQuery['status'];
  if (statusRaw === 'success' || statusRaw === 'error') status = statusRaw;
  else if (statusRaw !== undefined) {
    const n = Number(statusRaw);
    if (!Number.isInteger(n) || n < 100 || n > 599) throw new InputError("Invalid input: 'status' must be success, error or an HTTP status.", { details: { field: 'status' } });
    status = n;
  }
  const objectType = str('objectType');
  if (objectType && !OBJECT_TYPES.includes(objectType)) throw new InputError(`Invalid input: 'objectType' must be one of: ${OBJECT_TYPES.join(', ')}.`, { details: { field: 'objectType' } });
  if (objectType === 'provider') return { provider: str('objectId') ?? str('provider'), providerServed: true, status, ...paging(q) };
  return { objectType, objectId: str('objectId'), provider: str('provider'), status, ...paging(q) };
}
