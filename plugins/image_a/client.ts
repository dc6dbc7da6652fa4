/**
 * Client of the image_a predictions API (contracts §9, Replicate-style): create with
 * `Prefer: wait=N`, poll `urls.get` with backoff until a terminal status or our deadline, and
 * cancel upstream on the deadline or when the caller hangs up, so nobody pays for an image no one
 * will receive (issue 16). Upstream faults become catalogue errors here.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  InputError,
  OperationFailedError,
  ServiceError,
  UpstreamError,
  UpstreamRateLimitError,
  invalidStructure,
  providerRequest,
  type RunContext,
} from '../../core/sdk.js';
import { TERMINAL, isPrediction, type ModelRef, type Prediction } from './schemas.js';

/** Settings the client reads (`ctx.config`). */
interface ClientConfig {
  baseUrl: string;
  deadlineMs: number;
  waitSeconds: number;
  pollIntervalMs: number;
}

/** Consecutive failed polls (5xx, network) tolerated before giving up, as the official client retries GETs. */
const MAX_POLL_FAILURES = 4;

/** The problem-details body of a failed call (contracts §9 "Errors"). */
function problem(res: { json<T>(): T }): { detail: string; title: string; fields: boolean } {
  try {
    const body = res.json<{ detail?: unknown; title?: unknown; invalid_fields?: unknown }>();
    const detail = typeof body?.detail === 'string' ? body.detail : '';
    // "- input.output_format: output_format must be one of …\n" → one line per problem, joined.
    const lines = detail.split('\n').map((l) => l.replace(/^\s*-\s*/, '').trim()).filter(Boolean);
    return { detail: lines.join('; ').slice(0, 500), title: typeof body?.title === 'string' ? body.title : '', fields: Array.isArray(body?.invalid_fields) && body.invalid_fields.length > 0 };
  } catch {
    return { detail: '', title: '', fields: false };
  }
}

function checked(ctx: RunContext<unknown>, data: unknown): Prediction {
  if (!isPrediction.Check(data)) {
    const e = isPrediction.Errors(data).First();
    throw invalidStructure(ctx, `not a prediction at '${e?.path || '/'}': ${e?.message}`);
  }
  return data;
}

/**
 * Creates a prediction and holds for up to `waitS` seconds (`Prefer: wait=N`). The call is not
 * tied to the caller's signal: if the caller hangs up meanwhile, the prediction's id still arrives
 * and the caller of this function cancels it.
 */
export async function createPrediction(ctx: RunContext<unknown>, ref: ModelRef, input: Record<string, unknown>, waitS: number): Promise<Prediction> {
  const own = { ...ctx, signal: AbortSignal.timeout((waitS + 15) * 1000) };
  const where = `${ref.owner}/${ref.name}${ref.version ? `:${ref.version}` : ''}`;
  const { data } = await providerRequest(own, {
    path: ref.version ? '/predictions' : `/models/${ref.owner}/${ref.name}/predictions`,
    json: ref.version ? { version: ref.version, input } : { input },
    headers: { prefer: `wait=${waitS}` },
    timeoutMs: (waitS + 10) * 1000,
    mapError(res) {
      if (res.status !== 404 && res.status !== 422) return undefined;
      const p = problem(res);
      // 422 with invalid_fields: the input (spec §7.1 "upstream service rejecting the input").
      if (res.status === 422 && (p.fields || /input validation/i.test(p.title))) return new InputError(`Invalid input: ${p.detail || p.title || 'rejected by the model'}.`.replace(/\.\.$/, '.'));
      // Unknown model or version: the operator's model setting, not the caller's input.
      ctx.log.error({ provider: ctx.provider, model: where, status: res.status, detail: p.detail }, 'image_a model setting names a model or version the API does not know');
      return new OperationFailedError(`Failed to generate image: model ${where} is not available.`);
    },
  });
  return checked(ctx, data);
}

/** Reads a prediction: `urls.get` when it is on our API's origin, else `/predictions/{id}`. */
async function getPrediction(ctx: RunContext<unknown>, p: Prediction): Promise<Prediction> {
  const base = new URL(String(ctx.config.baseUrl));
  const get = p.urls?.get ? new URL(p.urls.get, base) : undefined;
  const call = get && get.origin === base.origin ? { baseUrl: base.origin, path: get.pathname + get.search } : { path: `/predictions/${encodeURIComponent(p.id)}` };
  const { data } = await providerRequest(ctx, { ...call, method: 'GET' });
  return checked(ctx, data);
}

/**
 * Cancels a prediction upstream (`POST /predictions/{id}/cancel`). Best effort and never throws:
 * it runs after the caller's signal may have fired, so it has its own.
 */
export async function cancelPrediction(ctx: RunContext<unknown>, id: string): Promise<boolean> {
  try {
    await providerRequest({ ...ctx, signal: AbortSignal.timeout(15_000) }, { path: `/predictions/${encodeURIComponent(id)}/cancel`, method: 'POST', timeoutMs: 10_000 });
    ctx.log.info({ provider: ctx.provider, prediction: id }, 'prediction cancelled upstream');
    return true;
  } catch (err) {
    ctx.log.warn({ provider: ctx.provider, prediction: id, err }, 'could not cancel the prediction upstream');
    return false;
  }
}

/** The delay before the next poll: the provider's `Retry-After` when it gave one, else backoff. */
export function nextPollDelay(previousMs: number, intervalMs: number, retryAfterS?: unknown): number {
  const hinted = Number(retryAfterS);
  if (Number.isFinite(hinted) && hinted > 0) return hinted * 1000;
  return Math.min(Math.round(previousMs * 1.5), Math.max(intervalMs, Math.min(10 * intervalMs, 5000)));
}

/**
 * Polls until the prediction is terminal. Rate-limited polls wait as told; a few failed polls are
 * retried. Throws on the deadline or the caller's abort (the caller of this function cancels).
 */
async function untilTerminal(ctx: RunContext<unknown>, first: Prediction, deadline: number, intervalMs: number): Promise<Prediction> {
  let p = first;
  let delay = intervalMs;
  let failures = 0;
  while (!TERMINAL.has(p.status)) {
    if (Date.now() + delay > deadline) throw new DeadlineError();
    await sleep(delay, undefined, { signal: ctx.signal });
    try {
      p = await getPrediction(ctx, p);
      failures = 0;
      delay = nextPollDelay(delay, intervalMs);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if (err instanceof UpstreamRateLimitError) delay = nextPollDelay(delay, intervalMs, err.details?.retryAfter);
      else if (err instanceof UpstreamError && ++failures < MAX_POLL_FAILURES) delay = nextPollDelay(delay, intervalMs);
      else throw err;
    }
  }
  return p;
}

/** The deadline passed before the prediction finished. */
class DeadlineError extends Error {}

/**
 * Runs one prediction to its end: create, poll, and cancel upstream when it is abandoned (deadline,
 * caller gone, polling failed). Returns the terminal prediction.
 */
export async function runPrediction(ctx: RunContext<unknown>, ref: ModelRef, input: Record<string, unknown>): Promise<Prediction> {
  const cfg = ctx.config as unknown as ClientConfig;
  const deadline = Date.now() + cfg.deadlineMs;
  const waitS = Math.max(1, Math.min(cfg.waitSeconds, Math.floor(cfg.deadlineMs / 1000)));
  const created = await createPrediction(ctx, ref, input, waitS);
  ctx.log.info({ provider: ctx.provider, prediction: created.id, status: created.status }, 'prediction created');
  try {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return await untilTerminal(ctx, created, deadline, cfg.pollIntervalMs);
  } catch (err) {
    await cancelPrediction(ctx, created.id);
    if (err instanceof DeadlineError) throw new OperationFailedError(`Failed to generate image: the model did not finish within ${Math.round(cfg.deadlineMs / 1000)} s.`);
    if (err instanceof ServiceError || ctx.signal.aborted) throw err;
    throw new UpstreamError(`Failed to retrieve data from ${ctx.provider} service.`, { cause: err });
  }
}
