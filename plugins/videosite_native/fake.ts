/**
 * A loopback stand-in for the video site (issue 12): it replays real recorded InnerTube answers
 * (test/fixtures/videosite/youtube-transcript-api, MIT) and documents written in the same formats
 * (test/fixtures/videosite/authored; live streams in ./fixtures/live.json) on the routes the
 * plugin uses: `POST /youtubei/v1/player`, `next`, `browse`, `navigation/resolve_url`, `search`,
 * and `GET /api/timedtext`. Scenario video
 * ids pick the recorded site states (unavailable, age-restricted, bot check, 429 captcha page…).
 * `opts.videos` adds answers for more video ids (or replaces the fake's own for an id it knows):
 * the benchmark uses it to replay real recorded player + next pairs read from a local folder.
 */
import { readFileSync } from 'node:fs';
import { fakeUpstream, type FakeAnswer, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';

const FIXTURES = new URL('../../test/fixtures/videosite/', import.meta.url);
/** Player + next pairs of live streams (scheduled, live now), by video id: see fixtures/README.md. */
const LIVE = new URL('./fixtures/live.json', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, FIXTURES));
const json = (path: string) => JSON.parse(read(path).toString('utf8'));

/** Video ids the fake knows, with the recorded player answer each replays. */
export const RECORDED_PLAYERS: Record<string, string> = {
  GJLlxj_dtq8: 'youtube.innertube.json', // 9 tracks: zh, cs, en, en (asr), de, hi, ja, ko, es
  F1xioXWb8CY: 'youtube_ww1_nl_en.innertube.json', // en and en (asr)
  dsMFmonKDD4: 'youtube_transcripts_disabled.innertube.json',
  Njp5uhTorCo: 'youtube_age_restricted.innertube.json',
  Unavailable: 'youtube_video_unavailable.innertube.json',
  BotBlocked0: 'youtube_request_blocked.innertube.json',
  Unplayable0: 'youtube_unplayable.innertube.json',
  PoTokenNeed: 'youtube_po_token_required.innertube.json',
};
/** Answers the site's "unusual traffic" page with HTTP 429. */
export const TOO_MANY_REQUESTS_ID = 'TooManyReqs';

/** A running fake (the site needs no key). */
export type VideositeFake = FakeUpstream;

/** Answers to serve for one video id, as bytes (sent as they are) or a JSON value; either may be left out. */
export interface ExtraVideoAnswers {
  player?: Buffer | object;
  next?: Buffer | object;
}

/** Decodes the comment-section token a client builds (field layout in comments.ts): video id and sort. */
function commentsRequest(token: string): { videoId: string; sort: 'top' | 'newest' } | undefined {
  try {
    const bytes = Buffer.from(decodeURIComponent(token), 'base64');
    if (!bytes.includes(Buffer.from('comments-section'))) return undefined;
    return { videoId: bytes.subarray(4, 15).toString('latin1'), sort: bytes.includes(Buffer.from([0x30, 0x01])) ? 'newest' : 'top' };
  } catch {
    return undefined;
  }
}

/**
 * Starts the fake on 127.0.0.1 at a free port. `opts.videos` maps a video id to the `player`
 * and/or `next` answer to serve for it, ahead of the fake's own answers for that id.
 */
export function startVideositeFake(opts: { videos?: Record<string, ExtraVideoAnswers> } = {}): Promise<VideositeFake> {
  const players = json('authored/players.json');
  const nexts = json('authored/next.json');
  const comments = json('authored/comments.json');
  const browse = json('authored/browse.json');
  const searches = json('authored/search.json');
  const recorded = new Map(Object.entries(RECORDED_PLAYERS).map(([id, f]) => [id, read(`youtube-transcript-api/${f}`)]));
  // Serialised once, so a large answer costs its bytes on each request and no JSON.stringify.
  const asBytes = (x: Buffer | object | undefined) => (x === undefined ? undefined : Buffer.isBuffer(x) ? x : Buffer.from(JSON.stringify(x)));
  const extraPlayers = new Map<string, Buffer>();
  const extraNexts = new Map<string, Buffer>();
  const live: Record<string, ExtraVideoAnswers> = JSON.parse(readFileSync(LIVE, 'utf8'));
  for (const [id, a] of Object.entries({ ...live, ...opts.videos })) {
    const p = asBytes(a.player);
    const n = asBytes(a.next);
    if (p) extraPlayers.set(id, p);
    if (n) extraNexts.set(id, n);
  }
  const JSON_TYPE = { 'content-type': 'application/json; charset=UTF-8' };
  const XML_TYPE = { 'content-type': 'text/xml; charset=UTF-8' };
  const send = (payload: Buffer | object, status = 200): FakeAnswer => (Buffer.isBuffer(payload) ? { status, bytes: payload, headers: JSON_TYPE } : { status, json: payload });
  const notFound = send({ error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } }, 404);
  const invalidArgument = send({ error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } }, 400);
  const routes: Record<string, FakeRoute<{}>> = {
    '* /youtubei/v1/player': ({ body = {} }) => {
      const id = String(body.videoId ?? '');
      const extra = extraPlayers.get(id);
      if (extra) return send(extra);
      if (id === TOO_MANY_REQUESTS_ID) return { status: 429, bytes: read('youtube-transcript-api/youtube_too_many_requests.html'), headers: { 'content-type': 'text/html; charset=UTF-8' } };
      return send(players[id] ?? recorded.get(id) ?? recorded.get('Unavailable')!);
    },
    '* /youtubei/v1/next': ({ body = {} }) => {
      const extra = body.videoId ? extraNexts.get(String(body.videoId)) : undefined;
      if (extra) return send(extra);
      if (body.videoId) return send(nexts[body.videoId] ?? { responseContext: {} });
      const c = commentsRequest(String(body.continuation ?? ''));
      const doc = c ? comments[`${c.sort}:${c.videoId}`] : comments[String(body.continuation)];
      return doc ? send(doc) : invalidArgument;
    },
    '* /youtubei/v1/navigation/resolve_url': ({ body = {} }) => {
      const doc = browse[`resolve:${new URL(String(body.url ?? ''), 'https://www.youtube.com').pathname}`];
      return doc ? send(doc) : notFound;
    },
    '* /youtubei/v1/browse': ({ body = {} }) => {
      const tab = body.params ? (String(body.params).startsWith('EgZ2aWRlb3') ? ':videos' : ':shorts') : '';
      const doc = body.continuation ? browse[String(body.continuation)] : browse[`browse:${body.browseId}${tab}`];
      return doc ? send(doc) : body.continuation ? invalidArgument : notFound;
    },
    '* /youtubei/v1/search': ({ body = {} }) => {
      const doc = body.continuation ? searches[String(body.continuation)] : searches[`query:${body.query}`];
      return send(doc ?? { responseContext: {}, contents: { twoColumnSearchResultsRenderer: { primaryContents: { sectionListRenderer: { contents: [] } } } } });
    },
    '* /api/timedtext': ({ query: { v, lang, kind, exp } }) => {
      // The site answers an empty 200 for tracks that need a proof-of-origin token.
      if (exp === 'xpe') return { text: '', headers: XML_TYPE };
      if (v === 'GJLlxj_dtq8' && lang === 'en' && !kind) return { bytes: read('youtube-transcript-api/transcript.xml'), headers: XML_TYPE };
      try {
        return { bytes: read(`authored/timedtext/${v}.${lang}${kind === 'asr' ? '.asr' : ''}.xml`), headers: XML_TYPE };
      } catch {
        return notFound;
      }
    },
  };
  return fakeUpstream({
    auth: 'none',
    error: (code, message) => ({ error: { code, message, status: code === 404 ? 'NOT_FOUND' : code === 400 ? 'INVALID_ARGUMENT' : 'UNAVAILABLE' } }),
    env: ({ url }) => ({ VIDEOSITE_NATIVE_BASE_URL: url }),
    routes,
  });
}

/** The name every provider fake exports (the contract test looks for it). */
export const startFake = startVideositeFake;
