/**
 * The Jobs page's way to the service, one shape for both roles: administrators read every key's
 * jobs through `/admin/jobs` (plain answers), key holders their own through `/api/v2/jobs` (the v2
 * envelope). Cancel is `POST /admin/jobs/:id/cancel` or `DELETE /api/v2/jobs/:id`.
 */
import { api, errorText, qs } from '../api.js';

/** A job as the page shows it (the API's job view; `keyId` for administrators). */
export interface Job {
  id: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  type: string;
  target: string;
  provider?: string | null;
  progress: { done: number; failed: number; total: number | null };
  creditsCharged: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error?: { code: string; message: string };
  data?: unknown;
  results?: { items: unknown[]; next: string | null };
  keyId?: string;
}

/** Filters of the job list (`keyId` and `target` for administrators only). */
export interface JobFilters {
  status: string;
  keyId: string;
  target: string;
  page: number;
}

/** Whether the signed-in role reads every key's jobs. */
export type Role = 'admin' | 'key';

/** Rows per page of the job list. */
export const PAGE_SIZE = 20;
/** Results per page of a job's detail. */
export const RESULTS_PAGE = 20;

/** True while a job can still change (the page keeps polling and offers Cancel). */
export const isLive = (j: Pick<Job, 'status'>): boolean => j.status === 'queued' || j.status === 'running';

type Answer<T> = { ok: true; value: T } | { ok: false; error: string; status: number };

/** One page of jobs. */
export async function listJobs(role: Role, f: JobFilters): Promise<Answer<Job[]>> {
  const r = role === 'admin'
    ? await api('GET', `/admin/jobs${qs({ status: f.status, keyId: f.keyId, target: f.target, page: f.page, limit: PAGE_SIZE })}`)
    : await api('GET', `/api/v2/jobs${qs({ status: f.status, page: f.page, limit: PAGE_SIZE })}`);
  if (!r.ok) return { ok: false, error: errorText(r), status: r.status };
  return { ok: true, value: (role === 'admin' ? r.json.items : r.json.data.items) as Job[] };
}

/** One job with a page of its results from `cursor`. */
export async function getJob(role: Role, id: string, cursor: string): Promise<Answer<Job>> {
  const q = qs({ cursor, limit: RESULTS_PAGE });
  const r = role === 'admin' ? await api('GET', `/admin/jobs/${encodeURIComponent(id)}${q}`) : await api('GET', `/api/v2/jobs/${encodeURIComponent(id)}${q}`);
  if (!r.ok) return { ok: false, error: errorText(r), status: r.status };
  return { ok: true, value: (role === 'admin' ? r.json : r.json.data) as Job };
}

/** Cancels a job; its view after the cancel. */
export async function cancelJob(role: Role, id: string): Promise<Answer<Job>> {
  const r = role === 'admin' ? await api('POST', `/admin/jobs/${encodeURIComponent(id)}/cancel`) : await api('DELETE', `/api/v2/jobs/${encodeURIComponent(id)}`);
  if (!r.ok) return { ok: false, error: errorText(r), status: r.status };
  return { ok: true, value: (role === 'admin' ? r.json : r.json.data) as Job };
}

/** A job submission (key holders): `POST /api/v2/jobs`. */
export interface JobSubmission {
  type: 'capability' | 'endpoint';
  id: string;
  input: Record<string, unknown>;
  webhookUrl?: string;
}

/** Submits a job; its id on 202. */
export async function submitJob(s: JobSubmission): Promise<Answer<{ id: string }>> {
  const body: Record<string, unknown> = { type: s.type, id: s.id, input: s.input };
  if (s.webhookUrl) body.webhook = { url: s.webhookUrl };
  const r = await api('POST', '/api/v2/jobs', body);
  if (!r.ok) return { ok: false, error: errorText(r), status: r.status };
  return { ok: true, value: { id: r.json.data.id as string } };
}
