/** The job as clients read it (`object: "job"`), for the API, the admin API and webhook events. */
import type { JobRecord, ResultPage } from './types.js';

/** A job's status view; `results` only when asked for (stepwise jobs), `data` for single-result jobs. */
export function jobView(j: JobRecord, results?: ResultPage): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: j.id,
    status: j.status,
    type: j.type,
    target: j.target,
    provider: j.provider,
    progress: { done: j.done, failed: j.failed, total: j.total },
    creditsCharged: j.creditsCharged,
    createdAt: j.createdAt.toISOString(),
    startedAt: j.startedAt?.toISOString() ?? null,
    finishedAt: j.finishedAt?.toISOString() ?? null,
  };
  if (j.errorCode) view.error = { code: j.errorCode, message: j.errorMessage ?? '' };
  if (!j.stepwise && j.status === 'completed') view.data = j.data;
  if (results) view.results = results;
  return view;
}
