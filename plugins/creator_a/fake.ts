/**
 * A loopback fake of the creator_a API (ScrapeCreators, contracts §3) for tests: GET routes with
 * query parameters, `x-api-key` auth (401 otherwise), `success`/`credits_remaining`/
 * `credits_charged` on every answer, offset cursors for comments, time cursors for follow lists
 * and profile videos, HTTP 404 for unknown records, `success:false` bodies; built on the fake kit,
 * with the provider's own 402 and 429 bodies.
 */
import { fakeUpstream, type FakeUpstream } from '../../core/testing/index.js';
import {
  BROKEN_VIDEO_ID, COMMENT_PAGE, COMMENT_TOTAL, COMPANY, FOLLOW_PAGE, FOLLOW_TOTAL, PERSON, PROFILE, PROFILE_VIDEOS, QUIET_VIDEO_ID, VIDEO_ID, WEBVTT,
  awemeDetail, nativeComment, nativeFollow,
} from './fake-data.js';
import { videositeRoute } from './fake-videosite.js';

/** A running fake. */
export type CreatorAFake = FakeUpstream;

type Answer = [number, unknown];

const ok = (body: Record<string, unknown>): Answer => [200, { success: true, credits_remaining: 9999, credits_charged: 1, ...body }];
const missing = (message: string): Answer => [404, { success: false, message }];

/** The video id of a URL the fake knows (short links resolve to VIDEO_ID). */
function videoId(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const m = /\/video\/(\d+)/.exec(url);
  if (m) return m[1];
  return /vm\.tiktok\.com|vt\.tiktok\.com|\/t\//.test(url) ? VIDEO_ID : undefined;
}

function comments(q: Record<string, string>): Answer {
  const id = videoId(q.url);
  if (id === BROKEN_VIDEO_ID) return ok({ comments: 'not-a-list', cursor: 0, has_more: 0, total: 1 });
  if (id === QUIET_VIDEO_ID) return ok({ comments: null, cursor: 0, has_more: 0, total: 0, status_code: 0 });
  if (id !== VIDEO_ID) return missing('Video not found');
  const from = Number(q.cursor ?? 0);
  const to = Math.min(from + COMMENT_PAGE, COMMENT_TOTAL);
  const page = Array.from({ length: Math.max(0, to - from) }, (_, k) => nativeComment(from + k));
  return ok({ comments: page, cursor: to, has_more: to < COMMENT_TOTAL ? 1 : 0, total: COMMENT_TOTAL, status_code: 0, status_msg: '' });
}

function follows(kind: 'following' | 'followers', q: Record<string, string>): Answer {
  if (q.handle === 'broken') return [200, { success: false, message: 'Something went wrong upstream' }];
  if (q.handle === 'lonely') return ok({ [kind === 'following' ? 'followings' : 'followers']: [], has_more: false, total: 0, min_time: 0, max_time: 0 });
  if (q.handle !== 'creator') return missing('User not found');
  const all = Array.from({ length: FOLLOW_TOTAL }, (_, i) => nativeFollow(kind, i));
  // min_time from the previous page: entries followed before it (the site's time cursor).
  const rest = q.min_time ? all.filter((e) => e.follow_time < Number(q.min_time)) : all;
  const page = rest.slice(0, FOLLOW_PAGE);
  return ok({
    [kind === 'following' ? 'followings' : 'followers']: page.map(({ follow_time: _t, ...u }) => u),
    has_more: rest.length > page.length,
    total: FOLLOW_TOTAL,
    min_time: page.length ? page[page.length - 1]!.follow_time : Number(q.min_time ?? 0),
    max_time: page.length ? page[0]!.follow_time : 0,
    next_page_token: '',
    offset: 0,
  });
}

function transcript(q: Record<string, string>): Answer {
  const id = videoId(q.url);
  if (id === QUIET_VIDEO_ID) return ok({ id, url: q.url, transcript: null });
  if (id === BROKEN_VIDEO_ID) return ok({ id, url: q.url, transcript: 'Transcript unavailable, try again later' });
  if (id !== VIDEO_ID) return missing('Video not found');
  const text = q.language === 'es' ? WEBVTT.replace('Hello and welcome', 'Hola y bienvenidos') : WEBVTT;
  return ok({ id, url: q.url, transcript: text });
}

function profileVideos(q: Record<string, string>): Answer {
  if (q.handle !== 'creator') return missing('User not found');
  const sorted = q.sort_by === 'popular' ? [...PROFILE_VIDEOS].reverse() : PROFILE_VIDEOS;
  const rest = q.max_cursor ? sorted.filter((v) => v.create_time * 1000 < Number(q.max_cursor)) : sorted;
  const page = rest.slice(0, 5);
  return ok({
    aweme_list: page,
    max_cursor: page.length ? page[page.length - 1]!.create_time * 1000 : 0,
    min_cursor: page.length ? page[0]!.create_time * 1000 : 0,
    has_more: rest.length > page.length ? 1 : 0,
    extra: { now: 1737700000000, fatal_item_ids: [] },
    status_code: 0,
  });
}

/** The answer of one route, from the query parameters. */
function route(path: string, q: Record<string, string>): Answer {
  switch (path) {
    case '/v1/tiktok/video/comments':
      return comments(q);
    case '/v1/tiktok/user/following':
      return follows('following', q);
    case '/v1/tiktok/user/followers':
      return follows('followers', q);
    case '/v1/tiktok/video/transcript':
      return transcript(q);
    case '/v1/tiktok/profile':
      return q.handle === 'creator' ? ok(PROFILE) : missing('User not found');
    case '/v3/tiktok/profile/videos':
      return profileVideos(q);
    case '/v2/tiktok/video': {
      const id = videoId(q.url);
      return id === VIDEO_ID || id === QUIET_VIDEO_ID ? ok({ aweme_detail: awemeDetail(id) }) : missing('Video not found');
    }
    case '/v1/linkedin/company':
      if (q.url?.includes('/company/example-co')) return ok(COMPANY);
      if (q.url?.includes('/company/sparse-co')) return ok({ name: 'Sparse Co', employees: [], posts: [] });
      if (q.url?.includes('/company/broken-co')) return ok({ id: '1', description: 'no name' });
      return missing('Company not found');
    case '/v1/linkedin/profile':
      return q.url?.includes('/in/jane-example') ? ok(PERSON) : missing('Profile not found');
    default:
      return videositeRoute(path, q) ?? [404, { success: false, message: 'Endpoint not found' }];
  }
}

/** Starts the fake on 127.0.0.1 at a free port (`startFake`, the name the contract test looks for). */
export function startFake(opts: { apiKey?: string } = {}): Promise<CreatorAFake> {
  return fakeUpstream({
    apiKey: opts.apiKey ?? 'sc-test-key',
    auth: { header: 'x-api-key' },
    error: (_status, message) => ({ success: false, message }),
    outOfCredits: { status: 402, json: { success: false, message: "Looks like you're out of credits :( You'll need to buy more to continue using the service." } },
    rateLimited: { status: 429, json: { success: false, message: 'Exceeded daily rate limit.', limit: '1000', remaining: '0' } },
    env: ({ url, apiKey }) => ({ CREATOR_A_BASE_URL: url, CREATOR_A_API_KEY: apiKey }),
    routes: {
      'GET /*': ({ path, query }) => {
        const [status, json] = route(path, query);
        return { status, json };
      },
      '* /*': (_req, fake) => fake.error(405, 'Method not allowed'),
    },
  });
}
