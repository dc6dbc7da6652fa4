/**
 * The query strings of job reads, shared by every lane that shows jobs (the v2 jobs routes, the
 * admin API and CLI): status filter, list paging and results paging, with the same messages.
 */
import { InputError } from '../core/errors.js';
import { JOB_STATUSES, type JobStatus } from '../core/jobs/types.js';
import { pageQuery } from './query-paging.js';

/** Results per page at most (issue 25: ≤ 100). */
export const MAX_RESULTS_PAGE = 100;

/** `?cursor=&limit=&skipData=` of a job status read. */
export function resultPaging(q: Record<string, unknown>): { cursor: number; limit: number; skipData: boolean } {
  let cursor = 0;
  if (q.cursor !== undefined && q.cursor !== '') {
    cursor = Number(q.cursor);
    if (!Number.isSafeInteger(cursor) || cursor < 0) throw new InputError("Invalid input: 'cursor' must be the 'next' value of a previous page.", { details: { field: 'cursor' } });
  }
  let limit = MAX_RESULTS_PAGE;
  if (q.limit !== undefined && q.limit !== '') {
    limit = Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RESULTS_PAGE) throw new InputError(`Invalid input: 'limit' must be an integer from 1 to ${MAX_RESULTS_PAGE}.`, { details: { field: 'limit' } });
  }
  const skip = q.skipData;
  if (skip !== undefined && skip !== 'true' && skip !== 'false') throw new InputError("Invalid input: 'skipData' must be true or false.", { details: { field: 'skipData' } });
  return { cursor, limit, skipData: skip === 'true' };
}

/** `?page=&limit=` of a job listing (limit ≤ 100, default 20). */
export function listPaging(q: Record<string, unknown>): { page: number; limit: number } {
  return pageQuery(q, 20, MAX_RESULTS_PAGE);
}

/** `?status=` of a job listing. */
export function statusFilter(raw: unknown): JobStatus | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !JOB_STATUSES.includes(raw as JobStatus)) throw new InputError(`Invalid input: 'status' must be one of: ${JOB_STATUSES.join(', ')}.`, { details: { field: 'status' } });
  return raw as JobStatus;
}
