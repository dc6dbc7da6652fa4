/** `?page=&limit=` of a listing, read the same way (and with the same 400s) by every lane's lists. */
import { InputError } from '../core/errors.js';

/** Reads `page` (1-based) and `limit` (1 to `maxLimit`, `defaultLimit` when absent). */
export function pageQuery(q: Record<string, unknown>, defaultLimit: number, maxLimit: number): { page: number; limit: number } {
  const num = (name: string, dflt: number, max: number) => {
    const raw = q[name];
    if (raw === undefined || raw === '') return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new InputError(`Invalid input: '${name}' must be an integer from 1 to ${max}.`, { details: { field: name } });
    return n;
  };
  return { page: num('page', 1, 1_000_000), limit: num('limit', defaultLimit, maxLimit) };
}
