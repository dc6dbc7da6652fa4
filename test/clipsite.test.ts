/**
 * The short-video routes (spec §4.2, §2.9; issue 13) through the real HTTP server, served by
 * creator_a against the loopback fake of its contract: shapes, 400 and 404 texts, paging across
 * two pages, and credits charged only for successful requests (spec §8.1).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startFake as startCreatorAFake, type CreatorAFake } from '../plugins/creator_a/fake.js';
import { BROKEN_VIDEO_ID, COMMENT_TOTAL, FOLLOW_TOTAL, QUIET_VIDEO_ID, VIDEO_ID, WEBVTT } from '../plugins/creator_a/fake-data.js';

const VIDEO = `https://www.tiktok.com/@creator/video/${VIDEO_ID}`;
const QUIET = `https://www.tiktok.com/@creator/video/${QUIET_VIDEO_ID}`;
const BROKEN = `https://www.tiktok.com/@creator/video/${BROKEN_VIDEO_ID}`;

describe('clipsite routes through creator_a', () => {
  let fake: CreatorAFake;
  let s: TestServer;
  let key: string;

  before(async () => {
    fake = await startCreatorAFake();
    s = await startServer({ env: fake.env, serviceConfig: pluginsConfig(['creator_a']) });
    ({ key } = await s.createKey({ credits: 10_000 }));
  });
  after(async () => {
    await s?.close();
    await fake?.close();
  });

  const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  /** Calls a route and returns the response with the credits it cost. */
  async function post(path: string, body: unknown) {
    const before = await balance();
    const r = await s.call('POST', path, { key, body });
    return { ...r, cost: before - (await balance()) };
  }

  it('comments: spec §2.9 comments with nested replies, 10 credits, short links accepted', async () => {
    const r = await post('/api/v1/get-clipsite-video-comments', { url: VIDEO, requestSource: 'AUTOMATION_A' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.cost, 10);
    assert.deepEqual(Object.keys(r.json).sort(), ['comments', 'cursor', 'hasMore', 'total']);
    assert.equal(r.json.comments.length, 10);
    assert.deepEqual(Object.keys(r.json.comments[0]).sort(), ['cid', 'create_time', 'digg_count', 'reply_comment', 'reply_comment_total', 'text', 'user']);
    assert.equal(r.json.comments[0].reply_comment[0].user.unique_id, 'fan100');
    const short = await post('/api/v1/get-clipsite-video-comments', { url: 'https://vm.tiktok.com/ZMabc123/' });
    assert.equal(short.status, 200, short.text);
    assert.equal(fake.requests.at(-1)!.query.url, 'https://vm.tiktok.com/ZMabc123/');
  });

  it('comments: paging across two pages with cursor, and count', async () => {
    const p1 = await post('/api/v1/get-clipsite-video-comments', { url: VIDEO, count: 15 });
    assert.equal(p1.json.comments.length, 15);
    assert.deepEqual({ cursor: p1.json.cursor, hasMore: p1.json.hasMore, total: p1.json.total }, { cursor: 15, hasMore: true, total: COMMENT_TOTAL });
    const p2 = await post('/api/v1/get-clipsite-video-comments', { url: VIDEO, cursor: p1.json.cursor });
    assert.equal(p2.status, 200);
    assert.deepEqual(p2.json.comments.map((c: any) => c.cid), ['c15', 'c16', 'c17', 'c18', 'c19', 'c20', 'c21', 'c22', 'c23', 'c24']);
    assert.equal(p2.json.hasMore, false);
    assert.deepEqual({ p1: p1.cost, p2: p2.cost }, { p1: 10, p2: 10 });
  });

  it('following and followers: entries of user + stats, minTime paging, @ stripped', async () => {
    const p1 = await post('/api/v1/get-clipsite-user-following', { handle: '@creator' });
    assert.equal(p1.status, 200, p1.text);
    assert.deepEqual(Object.keys(p1.json).sort(), ['followingList', 'hasMore', 'maxCursor', 'minCursor', 'total']);
    assert.deepEqual(Object.keys(p1.json.followingList[0]), ['user', 'stats']);
    assert.equal(p1.json.total, FOLLOW_TOTAL);
    const p2 = await post('/api/v1/get-clipsite-user-following', { handle: 'creator', minTime: p1.json.minCursor });
    const names = [...p1.json.followingList, ...p2.json.followingList].map((e: any) => e.user.uniqueId);
    assert.equal(new Set(names).size, FOLLOW_TOTAL, 'two pages, no repeats');
    assert.equal(p2.json.hasMore, false);
    const followers = await post('/api/v1/get-clipsite-user-followers', { handle: 'creator' });
    assert.equal(followers.status, 200, followers.text);
    assert.equal(followers.json.followers[0].user.uniqueId, 'fan0');
    assert.equal(followers.cost, 10);
  });

  it('transcript: WebVTT exactly as the provider sends it; a body that is not WebVTT is a free 502', async () => {
    const r = await post('/api/v1/get-clipsite-transcript', { videoUrl: VIDEO, preferredLanguage: 'es' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { transcript: WEBVTT.replace('Hello and welcome', 'Hola y bienvenidos'), language: 'es', id: VIDEO_ID, originalUrl: VIDEO });
    assert.equal(r.cost, 10);
    const bad = await post('/api/v1/get-clipsite-transcript', { videoUrl: BROKEN });
    assert.deepEqual({ status: bad.status, body: bad.json, cost: bad.cost }, { status: 502, body: { error: 'Received invalid data structure from clipsite service.' }, cost: 0 });
  });

  it('profile (spec §9.4 endpoint row), profile videos and one video', async () => {
    const p = await post('/api/v1/get-clipsite-profile', { handle: 'creator' });
    assert.equal(p.status, 200, p.text);
    assert.deepEqual(Object.keys(p.json).sort(), ['itemList', 'stats', 'user']);
    assert.equal(p.cost, 10);
    const v = await post('/api/v1/get-clipsite-profile-videos', { handle: 'creator', sortBy: 'latest' });
    assert.equal(v.status, 200, v.text);
    assert.deepEqual(Object.keys(v.json).sort(), ['aweme_list', 'extra', 'hasMore', 'has_more', 'max_cursor', 'min_cursor']);
    const v2 = await post('/api/v1/get-clipsite-profile-videos', { handle: 'creator', maxCursor: v.json.max_cursor });
    assert.equal(v2.json.aweme_list.length, 5);
    assert.ok(v2.json.aweme_list.every((a: any) => !v.json.aweme_list.some((b: any) => b.aweme_id === a.aweme_id)), 'the second page is new videos');
    const one = await post('/api/v1/get-clipsite-video', { url: VIDEO });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.json.id, VIDEO_ID);
    assert.equal(typeof one.json.createTimeISO, 'string');
    assert.ok(one.json.music && one.json.author && one.json.video);
  });

  it('400s with the spec texts, before any credit or upstream call', async () => {
    const calls = fake.requests.length;
    const cases: [string, unknown, string][] = [
      ['/api/v1/get-clipsite-video-comments', {}, "'url' parameter is required and must be a non-empty string."],
      ['/api/v1/get-clipsite-video-comments', { url: 'https://example.com/video/1' }, 'Invalid clipsite video URL format.'],
      ['/api/v1/get-clipsite-video-comments', { url: VIDEO, count: 0 }, "'count' must be an integer between 1 and 100."],
      ['/api/v1/get-clipsite-user-following', { handle: '' }, "'handle' parameter is required and must be a non-empty string."],
      ['/api/v1/get-clipsite-user-following', { handle: '@' }, "'handle' parameter is required and must be a non-empty string."],
      ['/api/v1/get-clipsite-transcript', {}, 'videoUrl parameter is required'],
      ['/api/v1/get-clipsite-transcript', { videoUrl: VIDEO, preferredLanguage: 'english' }, "'preferredLanguage' must be a 2-letter ISO 639-1 code such as en (a region form such as zh-TW is accepted)."],
      ['/api/v1/get-clipsite-profile', {}, "'handle' parameter is required and must be a non-empty string."],
      ['/api/v1/get-clipsite-video', { url: 'not a url' }, 'Invalid clipsite video URL format.'],
    ];
    for (const [path, body, error] of cases) {
      const r = await post(path, body);
      assert.deepEqual({ status: r.status, body: r.json, cost: r.cost }, { status: 400, body: { error }, cost: 0 }, `${path} ${JSON.stringify(body)}`);
    }
    assert.equal(fake.requests.length, calls);
  });

  it('404s with the spec texts, free of charge', async () => {
    const cases: [string, unknown, string][] = [
      ['/api/v1/get-clipsite-video-comments', { url: QUIET }, `Comments not found for video URL: ${QUIET}`],
      ['/api/v1/get-clipsite-user-following', { handle: 'nobody' }, 'Following list not found for user: nobody'],
      ['/api/v1/get-clipsite-user-following', { handle: 'lonely' }, 'Following list not found for user: lonely'],
      ['/api/v1/get-clipsite-user-followers', { handle: '@nobody' }, 'Followers list not found for user: nobody'],
      ['/api/v1/get-clipsite-transcript', { videoUrl: QUIET }, `No subtitles found for the clipsite video: ${QUIET}`],
      ['/api/v1/get-clipsite-profile', { handle: 'nobody' }, 'Profile not found for user: nobody'],
    ];
    for (const [path, body, error] of cases) {
      const r = await post(path, body);
      assert.deepEqual({ status: r.status, body: r.json, cost: r.cost }, { status: 404, body: { error }, cost: 0 }, path);
    }
  });

  it('provider faults map to the spec statuses and cost nothing', async () => {
    try {
      for (const [status, expected, error] of [
        [401, 500, 'Service authentication failed. Please contact support.'],
        [429, 503, 'Rate limit exceeded. Please try again later.'],
        [503, 502, 'Failed to retrieve data from clipsite service.'],
      ] as const) {
        fake.failWith(status);
        const r = await post('/api/v1/get-clipsite-video-comments', { url: VIDEO });
        assert.deepEqual({ status: r.status, body: r.json, cost: r.cost }, { status: expected, body: { error }, cost: 0 }, `provider ${status}`);
      }
      fake.outOfCredits();
      const out = await post('/api/v1/get-clipsite-user-following', { handle: 'creator' });
      assert.deepEqual({ status: out.status, cost: out.cost }, { status: 503, cost: 0 }, 'our provider account out of credits');
      fake.reset();
      const odd = await post('/api/v1/get-clipsite-user-following', { handle: 'broken' });
      assert.deepEqual({ status: odd.status, body: odd.json, cost: odd.cost }, { status: 502, body: { error: 'Received invalid data structure from clipsite service.' }, cost: 0 }, 'success:false that is not "not found"');
      const malformed = await post('/api/v1/get-clipsite-video-comments', { url: BROKEN });
      assert.deepEqual({ status: malformed.status, cost: malformed.cost }, { status: 502, cost: 0 }, 'comments that are not a list');
    } finally {
      fake.reset();
    }
  });

  it('the provider credit counters reach meta.native on v2, never a v1 body', async () => {
    const v1 = await s.call('POST', '/api/v1/get-clipsite-profile', { key, body: { handle: 'creator' } });
    assert.ok(!('credits_remaining' in v1.json) && !('success' in v1.json));
    const v2 = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'creator_a.clipsite_profile', input: { handle: 'creator' }, options: { include_native: true } } });
    assert.equal(v2.status, 200, v2.text);
    assert.equal(v2.json.meta.native.credits_remaining, 9999);
    assert.equal(v2.json.meta.credits, 10);
    assert.ok(!('credits_remaining' in v2.json.data));
  });
});
