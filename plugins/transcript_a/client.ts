/**
 * Client of the transcript_a API (Supadata, contracts §4): GET routes with query parameters, the
 * key in `x-api-key`, errors as `{ error: <code>, message, details, documentationUrl }`. The
 * provider's own cases become catalogue errors here: 206 `transcript-unavailable` is "no
 * subtitles" (spec §4.1 404), 403 `forbidden` is a restricted video (not our key: that is 401),
 * 404 is a video or channel it cannot find, and a 202 transcript job is polled until it ends.
 */
import { NotFoundError, UpstreamError, invalidStructure, providerRequest, type HttpResponse, type RunContext, type ServiceError } from '../../core/sdk.js';
import { noSubtitles, type TimedText } from '../../core/catalogue.js';

/** The public name in failure texts: the calls are about the video site (spec §7.1 wording). */
export const SERVICE = 'videosite';

/** A JSON object answer. */
export type Json = Record<string, any>;

/** One GET call and what its "not found" means for this operation. */
export interface SupadataCall {
  path: string;
  query: Record<string, string | number | boolean | undefined>;
  /** The 404 text when the provider finds no such video or channel. */
  notFound: string;
  /** Statuses beyond 2xx that are answers, not failures. */
  accept?: number[];
}

/** The provider's error code (`error` field) of a failed answer, if it sent one. */
function errorCode(res: HttpResponse): string {
  try {
    const code = res.json<Json>()?.error;
    return typeof code === 'string' ? code : '';
  } catch {
    return '';
  }
}

/**
 * One call: the kit's standard mapping (401 → 500 authentication, 402 → a fallback-able 503 for
 * the operator, 429 → 503, 5xx/timeouts/garbage → 502) plus contracts §4's special cases. The
 * credits the provider billed (`x-billable-requests`) go to the log, never to the caller.
 */
export async function supadataGet(ctx: RunContext<any, any>, call: SupadataCall): Promise<{ status: number; body: Json }> {
  const { status, headers, data } = await providerRequest<unknown>(ctx, {
    path: call.path,
    query: call.query,
    auth: { header: 'x-api-key' },
    service: SERVICE,
    accept: call.accept,
    mapError: (res, message): ServiceError | undefined => {
      // contracts §4 "Errors": 403 `forbidden` is the video being restricted or needing a login.
      if (res.status === 403 && errorCode(res) === 'forbidden') return new NotFoundError(`${call.notFound.replace(/[.]$/, '')} (restricted: ${message || 'login required'}).`);
      if (res.status === 404) return new NotFoundError(call.notFound);
      return undefined;
    },
  });
  if (headers['x-billable-requests'] !== undefined) ctx.log.info({ provider: ctx.provider, route: call.path, billable: headers['x-billable-requests'] }, 'transcript_a credits used');
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw invalidStructure(ctx, `${call.path}: answer is not a JSON object`, SERVICE);
  return { status, body: data as Json };
}

/** A transcript as the provider returned it. */
export interface ProviderTranscript {
  segments: TimedText[];
  language: string;
  availableLanguages: string[];
}

/** What a transcript request asks for. */
export interface TranscriptRequest {
  url: string;
  videoId: string;
  /** Language code for the provider (ISO 639-1 where one exists). */
  lang?: string;
  /** `native` reads existing captions only; `auto` lets the provider generate a missing one. */
  mode: 'native' | 'auto';
  pollMs: number;
}

/** The provider's transcript body (`content` segments, `lang`, `availableLangs`) read strictly. */
function readTranscript(ctx: RunContext<any, any>, body: Json, req: TranscriptRequest): ProviderTranscript {
  const content = body.content;
  if (!Array.isArray(content)) throw invalidStructure(ctx, 'transcript content is not a segment array', SERVICE);
  const segments = content.map((s: Json) => {
    if (!s || typeof s.text !== 'string' || !Number.isFinite(Number(s.offset))) throw invalidStructure(ctx, 'transcript segment without text or offset', SERVICE);
    return { text: s.text, startMs: Number(s.offset), durationMs: Math.max(0, Number(s.duration) || 0) };
  });
  if (!segments.some((s) => s.text.trim())) throw new NotFoundError(noSubtitles(req.videoId));
  const first = content[0] as Json;
  const language = typeof body.lang === 'string' && body.lang ? body.lang : typeof first?.lang === 'string' && first.lang ? first.lang : req.lang ?? 'en';
  const availableLanguages = Array.isArray(body.availableLangs) ? body.availableLangs.filter((l: unknown): l is string => typeof l === 'string') : [language];
  return { segments, language, availableLanguages };
}

/**
 * The transcript of a video (contracts §4a, `GET /transcript`): segments with offsets, so the
 * spec §4.1 timestamps can be laid out. 206 → 404 `No subtitles found for the video: <id>` (never
 * charged); 202 `{ jobId }` (long media being transcribed) → `GET /transcript/{jobId}` every
 * `pollMs` until `completed` or `failed`, for as long as the call's signal allows.
 */
export async function fetchTranscript(ctx: RunContext<any, any>, req: TranscriptRequest): Promise<ProviderTranscript> {
  const notFound = `Video not found or unavailable: ${req.videoId}.`;
  const first = await supadataGet(ctx, { path: '/transcript', query: { url: req.url, lang: req.lang, text: false, mode: req.mode }, notFound });
  if (first.status === 206 || first.body.error === 'transcript-unavailable') throw new NotFoundError(noSubtitles(req.videoId));
  if (first.status !== 202) {
    ctx.setNative(first.body);
    return readTranscript(ctx, first.body, req);
  }
  const jobId = first.body.jobId;
  if (typeof jobId !== 'string' || !jobId) throw invalidStructure(ctx, '202 without jobId', SERVICE);
  ctx.log.info({ provider: ctx.provider, jobId, videoId: req.videoId }, 'transcript_a: transcript job started; polling');
  for (;;) {
    await sleep(req.pollMs, ctx.signal);
    let job: Json;
    try {
      ({ body: job } = await supadataGet(ctx, { path: `/transcript/${encodeURIComponent(jobId)}`, query: {}, notFound }));
    } catch (err) {
      // contracts §4a: job results are kept an hour, then 404: the provider lost it, not the video.
      if (err instanceof NotFoundError) throw new UpstreamError(`Failed to retrieve data from ${SERVICE} service.`, { cause: new Error(`transcript job ${jobId} is gone upstream`) });
      throw err;
    }
    if (job.status === 'completed') {
      ctx.setNative(job);
      return readTranscript(ctx, job, req);
    }
    if (job.status === 'failed') {
      const code = job.error && typeof job.error === 'object' ? String(job.error.error ?? '') : '';
      if (code === 'transcript-unavailable') throw new NotFoundError(noSubtitles(req.videoId));
      throw new UpstreamError(`Failed to retrieve data from ${SERVICE} service.`, { cause: new Error(`transcript job ${jobId} failed: ${code} ${job.error?.message ?? ''}`) });
    }
    if (job.status !== 'queued' && job.status !== 'active') throw invalidStructure(ctx, `transcript job status ${String(job.status)}`, SERVICE);
  }
}

/** Waits `ms`, or rejects with the signal's reason when the call is abandoned. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => (clearTimeout(t), reject(signal.reason));
    const t = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
