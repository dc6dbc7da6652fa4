/**
 * A loopback fake of the transcript_a API (Supadata, contracts §4) for tests: `x-api-key` auth,
 * `GET /v1/transcript` (200 segments, 206 `transcript-unavailable`, 202 `{ jobId }` for long media
 * in `auto` mode, 403 `forbidden` for a restricted video, 404 for an unknown one),
 * `GET /v1/transcript/{jobId}` (queued → active → completed, or failed; 404 once expired), `GET /v1/youtube/search`
 * (pages by nextPageToken, or `limit` gathered with no token) and `GET /v1/youtube/channel/videos`,
 * with the provider's error bodies and `x-billable-requests`. Built on the fake kit; state:
 * `jobPolls` (polls before a job ends) and `loseJobs` (job polls answer 404). Caption lines, search
 * results and channel uploads are recorded answers in `recorded/`.
 */
import { randomUUID } from 'node:crypto';
import { fakeUpstream, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';
import CAPTIONS from './recorded/caption-lines.json' with { type: 'json' };
import SEARCH from './recorded/search-results.json' with { type: 'json' };
import UPLOADS from './recorded/channel-uploads.json' with { type: 'json' };

/** A video with captions in en, de and es (the id the capability's examples use). */
export const TA_VIDEO = 'GJLlxj_dtq8';
/** No captions: 206 in `native` mode; a short generated transcript in `auto` mode. */
export const TA_NO_CAPTIONS = 'NoCaptions1';
/** Long media without captions: 206 in `native` mode; a 202 job in `auto` mode. */
export const TA_LONG = 'LongMedia01';
/** Like TA_LONG, but the job ends `failed` with `transcript-unavailable`. */
export const TA_JOB_FAILS = 'JobFails001';
/** A restricted video: 403 `forbidden`. */
export const TA_RESTRICTED = 'Restricted1';

interface State {
  /** Polls a job answers `queued`/`active` before it ends (default 2). */
  jobPolls: number;
  /** When set, job polls answer 404 (results expired or lost upstream). */
  loseJobs: boolean;
}

/** A running fake. */
export type TranscriptAFake = FakeUpstream<State>;
type Route = FakeRoute<State>;

const CODES: Record<number, string> = { 400: 'invalid-request', 401: 'unauthorized', 402: 'upgrade-required', 403: 'forbidden', 404: 'not-found', 429: 'limit-exceeded', 500: 'internal-error' };
const { generated: GENERATED, ...LINES } = CAPTIONS as Record<string, string[]>;
const PAGE = 2;

const segments = (lines: string[], lang: string, stepMs: number) => lines.map((text, i) => ({ text, offset: i * stepMs, duration: stepMs, lang }));
/** The 11-character video id of a watch URL (or a bare id). */
const videoIdOf = (url: string) => (URL.canParse(url) ? (new URL(url).searchParams.get('v') ?? '') : url);

const billed = { 'x-billable-requests': '1' };
const unavailable = { status: 206, json: { error: 'transcript-unavailable', message: 'No transcript is available for this video', details: '', documentationUrl: 'https://docs.supadata.ai/errors/transcript-unavailable' }, headers: billed };

/** Starts the fake on 127.0.0.1 at a free port (`startFake`, the name the contract test looks for). */
export function startFake(opts: { apiKey?: string } = {}): Promise<TranscriptAFake> {
  const jobs = new Map<string, { polls: number; video: string; lang: string }>();
  const transcript: Route = ({ query: q }, fake) => {
    if (!q.url) return fake.error(400, 'url is required');
    const id = videoIdOf(q.url);
    if (id === TA_RESTRICTED) return fake.error(403, 'This video is age-restricted and requires login');
    if (id === TA_VIDEO) {
      const lang = q.lang && LINES[q.lang] ? q.lang : 'en';
      const content = segments(LINES[lang]!, lang, 2500);
      return { json: { content: q.text === 'true' ? content.map((s) => s.text).join(' ') : content, lang, availableLangs: Object.keys(LINES) }, headers: billed };
    }
    if (![TA_NO_CAPTIONS, TA_LONG, TA_JOB_FAILS].includes(id)) return fake.error(404, 'Video not found');
    if (q.mode !== 'auto' && q.mode !== 'generate') return unavailable;
    if (id === TA_NO_CAPTIONS) return { json: { content: segments(GENERATED, 'en', 4000), lang: 'en', availableLangs: ['en'] }, headers: billed };
    const jobId = randomUUID();
    jobs.set(jobId, { polls: 0, video: id, lang: 'en' });
    return { status: 202, json: { jobId } };
  };
  const job: Route = ({ params }, fake) => {
    const j = jobs.get(params.job!);
    if (!j || fake.loseJobs) return fake.error(404, 'Job not found or expired');
    j.polls += 1;
    if (j.polls <= fake.jobPolls) return { json: { status: j.polls === 1 ? 'queued' : 'active', error: null } };
    if (j.video === TA_JOB_FAILS) return { json: { status: 'failed', error: { error: 'transcript-unavailable', message: 'No speech found', details: '', documentationUrl: '' } } };
    const lines = Array.from({ length: 12 }, (_, i) => `generated line ${i + 1}`);
    return { json: { status: 'completed', content: segments(lines, j.lang, 65_000), lang: j.lang, availableLangs: [j.lang], error: null }, headers: { 'x-billable-requests': '42' } };
  };
  const search: Route = ({ query: q }, fake) => {
    if (!q.query) return fake.error(400, 'query is required');
    if (q.query === 'broken answer') return { json: { query: q.query, results: 'none' } };
    const all = SEARCH.filter((r) => !q.type || q.type === 'all' || r.type === q.type);
    if (q.limit) return { json: { query: q.query, results: all.slice(0, Number(q.limit)), totalResults: all.length }, headers: { 'x-billable-requests': String(Math.ceil(Math.min(Number(q.limit), all.length) / PAGE) || 1) } };
    const start = q.nextPageToken ? Number(/^p(\d+)$/.exec(q.nextPageToken)?.[1] ?? NaN) * PAGE : 0;
    if (!Number.isFinite(start)) return fake.error(400, 'Invalid nextPageToken');
    const next = start + PAGE < all.length ? `p${start / PAGE + 1}` : undefined;
    return { json: { query: q.query, results: all.slice(start, start + PAGE), totalResults: all.length, ...(next ? { nextPageToken: next } : {}) }, headers: billed };
  };
  const channelVideos: Route = ({ query: q }, fake) => {
    if (!q.id) return fake.error(400, 'id is required');
    if (!UPLOADS.names.includes(q.id)) return fake.error(404, 'Channel not found'); // recorded: its id, handle and URL
    const type = q.type ?? 'all';
    let left = Number(q.limit ?? 30);
    const take = (list: string[], kind: string) => {
      const out = type !== 'all' && type !== kind ? [] : list.slice(0, left);
      left -= out.length;
      return out;
    };
    return { json: { videoIds: take(UPLOADS.videoIds, 'video'), shortIds: take(UPLOADS.shortIds, 'short'), liveIds: take(UPLOADS.liveIds, 'live') }, headers: billed };
  };
  return fakeUpstream({
    apiKey: opts.apiKey ?? 'sd_test_key',
    auth: { header: 'x-api-key' },
    error: (status, message) => ({ error: CODES[status] ?? 'internal-error', message, details: message, documentationUrl: `https://docs.supadata.ai/errors/${CODES[status] ?? 'internal-error'}` }),
    state: { jobPolls: 2, loseJobs: false },
    env: ({ url, apiKey }) => ({ TRANSCRIPT_A_BASE_URL: `${url}/v1`, TRANSCRIPT_A_API_KEY: apiKey, TRANSCRIPT_A_POLL_INTERVAL_MS: '10' }),
    routes: { 'GET /v1/transcript': transcript, 'GET /v1/transcript/:job': job, 'GET /v1/youtube/search': search, 'GET /v1/youtube/channel/videos': channelVideos },
  });
}
