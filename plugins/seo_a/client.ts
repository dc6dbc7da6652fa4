/**
 * Client of the seo_a API (DataForSEO v3, contracts §2): HTTP Basic auth, JSON arrays of tasks,
 * and one envelope for every answer whose internal `status_code` (top level and per task) says
 * what happened even when the HTTP status is 200. Faults become catalogue errors here (spec §7.1):
 * our credentials → 500, our account → 503 (logged for the operator), its rate limit → 503, a
 * field it rejects → 400, its own faults → 502; a task that fails is the operation failing.
 */
import { InputError, OperationFailedError, ProviderAuthError, ProviderOutOfCreditsError, UpstreamError, UpstreamRateLimitError, invalidStructure, providerRequest, type RunContext, type ServiceError } from '../../core/sdk.js';
import { checkLocation } from '../../core/catalogue.js';

/** One task of an envelope (contracts §2 "Base URL, auth, envelope"). */
export interface DfsTask {
  id: string;
  status_code: number;
  status_message: string;
  result: Record<string, unknown>[] | null;
  [k: string]: unknown;
}

/** The settings the client reads. */
export interface SeoConfig {
  baseUrl: string;
  login?: string;
  password?: string;
  pollIntervalMs: number;
  taskTimeoutMs: number;
}

/** Task codes meaning "not ready yet" (contracts §2: 40601 Task Handed, 40602 Task In Queue). */
export const PENDING = new Set([40601, 40602]);

/**
 * The catalogue error of an internal status code, or undefined for a success. `failed` names the
 * operation for task failures (`Failed to fetch engine reviews: No Search Results.`).
 */
export function statusError(ctx: Pick<RunContext, 'log'>, code: number, message: string, failed: string): ServiceError | undefined {
  if (code >= 20000 && code < 30000) return undefined;
  const cause = new Error(`seo_a status ${code}: ${message}`);
  if (code === 40100) return new ProviderAuthError({ cause });
  if (code === 40202) return new UpstreamRateLimitError({ cause });
  if (code === 40200 || code === 40201 || code === 40203 || code === 40205 || code === 40210) {
    ctx.log.error({ provider: 'seo_a', code, message }, 'the seo_a account cannot pay for tasks (balance, block or limits): see the provider dashboard');
    return new ProviderOutOfCreditsError({ cause });
  }
  // 40501 "Invalid Field" and 40000–40006 name a field of the task: the caller's value was refused.
  if (code === 40501 || (code >= 40000 && code <= 40006)) return new InputError(`seo_a rejected the request: ${message.replace(/[.\s]+$/, '')}.`, { cause });
  if (code >= 50000) return new UpstreamError('Failed to retrieve data from seo_a service.', { cause });
  return new OperationFailedError(`${failed}: ${message.replace(/[.\s]+$/, '') || `status ${code}`}.`, { cause });
}

/** Sends one call and returns the tasks of a top-level success (the envelope checked). */
export async function dfsCall(ctx: RunContext<any, any>, call: { path: string; tasks?: Record<string, unknown>[]; failed: string; timeoutMs?: number }): Promise<DfsTask[]> {
  const config = ctx.config as unknown as SeoConfig;
  const { data } = await providerRequest<Record<string, unknown>>(ctx, {
    path: call.path,
    method: call.tasks ? 'POST' : 'GET',
    json: call.tasks,
    auth: { basic: { user: config.login ?? '', password: config.password ?? '' } },
    timeoutMs: call.timeoutMs,
    maxBytes: 64 * 1024 * 1024,
  });
  if (!data || typeof data !== 'object' || typeof data.status_code !== 'number') throw invalidStructure(ctx, 'no envelope status_code');
  const top = statusError(ctx, data.status_code, String(data.status_message ?? ''), call.failed);
  if (top) throw top;
  const tasks = data.tasks;
  if (!Array.isArray(tasks) || tasks.some((t) => !t || typeof t !== 'object' || typeof t.status_code !== 'number')) throw invalidStructure(ctx, 'no tasks array');
  return tasks as DfsTask[];
}

/** Waits `ms`, or rejects with the abort reason as soon as `signal` fires. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The Standard (asynchronous) method (contracts §2a "Polling flow"): posts one task, then polls
 * `task_get/{id}` with a growing interval (×1.5, at most 8× the first) until the task is done or
 * the deadline passes. The provider has no way to cancel a task, so on the deadline or a client
 * hang-up polling stops at once and the task is abandoned (logged with its id); nothing is
 * charged to the caller for it.
 */
export async function runTask(ctx: RunContext<any, any>, api: string, task: Record<string, unknown>, failed: string): Promise<Record<string, unknown>> {
  const config = ctx.config as unknown as SeoConfig;
  await checkLocation(ctx, typeof task.location_name === 'string' ? task.location_name : undefined);
  const [posted] = await dfsCall(ctx, { path: `/v3/${api}/task_post`, tasks: [task], failed });
  if (!posted) throw invalidStructure(ctx, 'task_post answered no task');
  const postError = statusError(ctx, posted.status_code, posted.status_message, failed);
  if (postError) throw postError;
  if (typeof posted.id !== 'string' || !/^[\w-]{1,100}$/.test(posted.id)) throw invalidStructure(ctx, 'task_post answered no task id');
  const deadline = Date.now() + config.taskTimeoutMs;
  let delay = config.pollIntervalMs;
  try {
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      await sleep(Math.min(delay, left), ctx.signal);
      delay = Math.min(delay * 1.5, config.pollIntervalMs * 8);
      const [got] = await dfsCall(ctx, { path: `/v3/${api}/task_get/${encodeURIComponent(posted.id)}`, failed, timeoutMs: Math.max(1000, Math.min(30_000, deadline - Date.now() + 1000)) });
      if (!got) throw invalidStructure(ctx, 'task_get answered no task');
      if (PENDING.has(got.status_code)) continue;
      const err = statusError(ctx, got.status_code, got.status_message, failed);
      if (err) throw err;
      const result = Array.isArray(got.result) ? got.result[0] : undefined;
      if (!result || typeof result !== 'object') throw invalidStructure(ctx, 'finished task without a result');
      return result;
    }
  } catch (err) {
    if (ctx.signal.aborted) ctx.log.info({ provider: 'seo_a', task: posted.id }, 'seo_a task abandoned: the call ended before it was ready');
    throw err;
  }
  ctx.log.warn({ provider: 'seo_a', task: posted.id, timeoutMs: config.taskTimeoutMs }, 'seo_a task abandoned: not ready before the deadline');
  throw new UpstreamError(`The seo_a service did not finish the task within ${Math.round(config.taskTimeoutMs / 1000)} s.`);
}

/** A live call (one task, answered at once): the first result of the task. */
export async function runLive(ctx: RunContext<any, any>, path: string, task: Record<string, unknown>, failed: string): Promise<Record<string, unknown>> {
  await checkLocation(ctx, typeof task.location_name === 'string' ? task.location_name : undefined);
  const [got] = await dfsCall(ctx, { path, tasks: [task], failed });
  if (!got) throw invalidStructure(ctx, 'live call answered no task');
  const err = statusError(ctx, got.status_code, got.status_message, failed);
  if (err) throw err;
  const result = Array.isArray(got.result) ? got.result[0] : undefined;
  if (!result || typeof result !== 'object') throw invalidStructure(ctx, 'live task without a result');
  return result;
}

/** `London,England,United Kingdom` → location_name; `2826` → location_code; `lat,lng,radius` → location_coordinate. */
export function locationFields(location: string): Record<string, string | number> {
  const l = location.trim();
  if (/^\d{4,9}$/.test(l)) return { location_code: Number(l) };
  if (/^-?\d+(\.\d+)?,-?\d+(\.\d+)?(,\d+(\.\d+)?)?$/.test(l)) return { location_coordinate: l };
  return { location_name: l };
}

/**
 * Language codes as the provider lists them (contracts §2a `language_code`): a region is kept only
 * where the provider tells written forms apart (`zh-TW`, `zh-CN`); otherwise `pt-BR` → `pt`.
 */
export function providerLanguage(code: string): string {
  const [lang, region] = code.trim().split(/[-_]/).map((p) => p.toLowerCase());
  if (lang === 'zh' && region) return `zh-${region.toUpperCase()}`;
  return lang!;
}
