/**
 * A loopback fake of the transcript_a API (Supadata, contracts §4) for tests: `x-api-key` auth,
 * `GET /v1/transcript` (200 segments, 206 `transcript-unavailable`, 202 `{ jobId }` for long media
 * in `auto` mode, 403 `forbidden` for a restricted video, 404 for an unknown one),
 * `GET /v1/transcript/{jobId}` (queued → active → completed, or failed; 404 once expired), `GET /v1/youtube/search`
 * (pages by nextPageToken, or `limit` gathered with no token) and `GET /v1/youtube/channel/videos`,
 * with the provider's error bodies and `x-billable-requests`.
 */
import { randomUUID } from 'node:crypto';
import { serveLoopback } from '../../core/sdk.js';

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
/** Answers 200 with an HTML page instead of JSON. */
export const TA_GARBAGE = 'Garbage0001';
/** The channel the fake lists (also as `@fixturelab`). */
export const TA_CHANNEL = 'UCfixtureLabChannel00001';

/** A running fake. */
export interface TranscriptAFake {
  url: string;
  apiKey: string;
  /** The server's settings pointing transcript_a at the fake. */
  env: Record<string, string>;
  requests: { path: string; query: Record<string, string> }[];
  /** When set, every call answers this status with the provider's error body for it. */
  failWith: number | undefined;
  /** Polls a job answers `queued`/`active` before it ends (default 2). */
  jobPolls: number;
  /** When set, job polls answer 404 (results expired or lost upstream). */
  loseJobs: boolean;
  close(): Promise<void>;
}

const CODES: Record<number, string> = { 400: 'invalid-request', 401: 'unauthorized', 402: 'upgrade-required', 403: 'forbidden', 404: 'not-found', 429: 'limit-exceeded', 500: 'internal-error' };
const LINES: Record<string, string[]> = {
  en: ['Hello and welcome', 'to the fixture lab', 'today we test', 'transcripts', 'from a provider', 'with seven lines', 'the end'],
  de: ['Hallo und willkommen', 'im Testlabor', 'heute testen wir', 'Transkripte', 'von einem Anbieter', 'mit sieben Zeilen', 'das Ende'],
  es: ['Hola y bienvenidos', 'al laboratorio', 'hoy probamos', 'transcripciones', 'de un proveedor', 'con siete líneas', 'el fin'],
};
const GENERATED = ['this transcript', 'was generated', 'by speech recognition'];

const segments = (lines: string[], lang: string, stepMs: number) => lines.map((text, i) => ({ text, offset: i * stepMs, duration: stepMs, lang }));

const SEARCH = [
  { type: 'video', id: 'srchVideo01', title: 'Surface Go review', description: 'A long look.', thumbnail: 'https://i.ytimg.com/vi/srchVideo01/hq.jpg', duration: 754, viewCount: 120345, uploadDate: '2026-10-01T12:00:00Z', channel: { id: TA_CHANNEL, name: 'Fixture Lab', thumbnail: 'https://yt3.example/a.jpg' } },
  { type: 'channel', id: TA_CHANNEL, title: 'Fixture Lab', description: 'Tests all day.', thumbnail: 'https://yt3.example/a.jpg', subscriberCount: 2750000, videoCount: 312 },
  { type: 'video', id: 'srchVideo02', title: 'Surface Go 3 in 2026', duration: 185, viewCount: 5000, uploadDate: '2026-11-02T08:00:00Z', channel: { id: 'UCotherChannel0000000001', name: 'Other' } },
  { type: 'playlist', id: 'PLfixture0001', title: 'Tablet reviews', thumbnail: 'https://i.ytimg.com/pl.jpg', videoCount: 14, channel: { id: TA_CHANNEL, name: 'Fixture Lab' } },
  { type: 'video', id: 'srchVideo03', title: 'Surface Go teardown', duration: 1500, viewCount: 98000, uploadDate: null, channel: { id: TA_CHANNEL, name: 'Fixture Lab' } },
];
const PAGE = 2;
const CHANNEL_NAMES = new Set([TA_CHANNEL, '@fixturelab', 'https://www.youtube.com/c/fixturelab']);
const UPLOADS = {
  videoIds: Array.from({ length: 8 }, (_, i) => `labVideo00${i}`),
  shortIds: Array.from({ length: 3 }, (_, i) => `labShort00${i}`),
  liveIds: ['labLive0000'],
};

/** The 11-character video id of a watch URL (or a bare id). */
function videoIdOf(url: string): string {
  try {
    return new URL(url).searchParams.get('v') ?? '';
  } catch {
    return url;
  }
}

/** Starts the fake on 127.0.0.1 at a free port. */
export async function startTranscriptAFake(opts: { apiKey?: string } = {}): Promise<TranscriptAFake> {
  const apiKey = opts.apiKey ?? 'sd_test_key';
  const jobs = new Map<string, { polls: number; video: string; lang: string }>();
  const fake: TranscriptAFake = { url: '', apiKey, env: {}, requests: [], failWith: undefined, jobPolls: 2, loseJobs: false, close: async () => undefined };
  const server = await serveLoopback((req, res) => {
    req.resume();
    const u = new URL(req.url ?? '/', 'http://fake');
    const q = Object.fromEntries(u.searchParams);
    fake.requests.push({ path: u.pathname, query: q });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json', ...headers });
      res.end(text);
    };
    const fail = (status: number, message: string) => send(status, { error: CODES[status] ?? 'internal-error', message, details: message, documentationUrl: `https://docs.supadata.ai/errors/${CODES[status] ?? 'internal-error'}` });
    if (req.headers['x-api-key'] !== apiKey) return fail(401, 'Invalid or missing API key');
    if (fake.failWith) return fail(fake.failWith, 'Fake failure');
    const billed = { 'x-billable-requests': '1' };
    const path = u.pathname.replace(/^\/v1/, '');

    if (path === '/transcript') {
      if (!q.url) return fail(400, 'url is required');
      const id = videoIdOf(q.url);
      const auto = q.mode === 'auto' || q.mode === 'generate';
      if (id === TA_RESTRICTED) return fail(403, 'This video is age-restricted and requires login');
      if (id === TA_GARBAGE) return send(200, '<html><body>Bad gateway</body></html>');
      if (id === TA_VIDEO) {
        const lang = q.lang && LINES[q.lang] ? q.lang : 'en';
        const content = segments(LINES[lang]!, lang, 2500);
        return send(200, { content: q.text === 'true' ? content.map((s) => s.text).join(' ') : content, lang, availableLangs: Object.keys(LINES) }, billed);
      }
      if ([TA_NO_CAPTIONS, TA_LONG, TA_JOB_FAILS].includes(id)) {
        if (!auto) return send(206, { error: 'transcript-unavailable', message: 'No transcript is available for this video', details: '', documentationUrl: 'https://docs.supadata.ai/errors/transcript-unavailable' }, billed);
        if (id === TA_NO_CAPTIONS) return send(200, { content: segments(GENERATED, 'en', 4000), lang: 'en', availableLangs: ['en'] }, billed);
        const jobId = randomUUID();
        jobs.set(jobId, { polls: 0, video: id, lang: 'en' });
        return send(202, { jobId });
      }
      return fail(404, 'Video not found');
    }

    const job = /^\/transcript\/([^/]+)$/.exec(path);
    if (job) {
      const j = jobs.get(decodeURIComponent(job[1]!));
      if (!j || fake.loseJobs) return fail(404, 'Job not found or expired');
      j.polls += 1;
      if (j.polls <= fake.jobPolls) return send(200, { status: j.polls === 1 ? 'queued' : 'active', error: null });
      if (j.video === TA_JOB_FAILS) return send(200, { status: 'failed', error: { error: 'transcript-unavailable', message: 'No speech found', details: '', documentationUrl: '' } });
      const lines = Array.from({ length: 12 }, (_, i) => `generated line ${i + 1}`);
      return send(200, { status: 'completed', content: segments(lines, j.lang, 65_000), lang: j.lang, availableLangs: [j.lang], error: null }, { 'x-billable-requests': '42' });
    }

    if (path === '/youtube/search') {
      if (!q.query) return fail(400, 'query is required');
      if (q.query === 'broken answer') return send(200, { query: q.query, results: 'none' });
      const all = SEARCH.filter((r) => !q.type || q.type === 'all' || r.type === q.type);
      if (q.limit) return send(200, { query: q.query, results: all.slice(0, Number(q.limit)), totalResults: all.length }, { 'x-billable-requests': String(Math.ceil(Math.min(Number(q.limit), all.length) / PAGE) || 1) });
      const start = q.nextPageToken ? Number(/^p(\d+)$/.exec(q.nextPageToken)?.[1] ?? NaN) * PAGE : 0;
      if (!Number.isFinite(start)) return fail(400, 'Invalid nextPageToken');
      const next = start + PAGE < all.length ? `p${start / PAGE + 1}` : undefined;
      return send(200, { query: q.query, results: all.slice(start, start + PAGE), totalResults: all.length, ...(next ? { nextPageToken: next } : {}) }, billed);
    }

    if (path === '/youtube/channel/videos') {
      if (!q.id) return fail(400, 'id is required');
      if (!CHANNEL_NAMES.has(q.id)) return fail(404, 'Channel not found');
      const limit = Number(q.limit ?? 30);
      const type = q.type ?? 'all';
      let left = limit;
      const take = (list: string[], kind: string) => {
        if (type !== 'all' && type !== kind) return [];
        const out = list.slice(0, left);
        left -= out.length;
        return out;
      };
      return send(200, { videoIds: take(UPLOADS.videoIds, 'video'), shortIds: take(UPLOADS.shortIds, 'short'), liveIds: take(UPLOADS.liveIds, 'live') }, billed);
    }
    fail(404, 'Not found');
  });
  fake.url = server.url;
  fake.env = { TRANSCRIPT_A_BASE_URL: `${server.url}/v1`, TRANSCRIPT_A_API_KEY: apiKey, TRANSCRIPT_A_POLL_INTERVAL_MS: '10' };
  fake.close = () => server.close();
  return fake;
}

/** The name every provider fake exports (the contract test looks for it). */
export const startFake = startTranscriptAFake;
