/** creator_a: the real client against the loopback fake of its contract (contracts §3), through the executor. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pluginHarness, providerFaultSuite, withFake } from '../../core/testing/index.js';
import plugin from './index.js';
import { startFake } from './fake.js';
import { COMMENT_TOTAL, FOLLOW_TOTAL, VIDEO_ID, WEBVTT } from './fake-data.js';

const VIDEO = `https://www.tiktok.com/@creator/video/${VIDEO_ID}`;

const t = withFake(plugin, startFake);

providerFaultSuite({ plugin, fake: startFake, capability: 'clipsite_video', input: { url: VIDEO }, service: 'clipsite' });

test('comments: GET with x-api-key, native comments mapped to spec §2.9 with nested replies', async () => {
  const { data, credits, provider } = await t.h.capability('clipsite_video_comments', { url: VIDEO });
  assert.deepEqual([t.fake.last().path, t.fake.last().query], ['/v1/tiktok/video/comments', { url: VIDEO }]);
  assert.deepEqual([provider, credits], ['creator_a', 10]);
  assert.deepEqual({ n: data.comments.length, cursor: data.cursor, hasMore: data.hasMore, total: data.total }, { n: 10, cursor: 10, hasMore: true, total: COMMENT_TOTAL });
  const first = data.comments[0];
  assert.deepEqual(first.user, { uid: '690000000000000', unique_id: 'fan0', nickname: 'Fan 0', avatar_thumb: { url_list: ['https://cdn.example/avt/fan0~100x100.webp', 'https://cdn.example/avt/fan0~100x100.jpeg'] }, verified: false });
  assert.deepEqual([first.reply_comment.length, first.reply_comment[0].text, first.reply_comment_total], [1, 'Reply to 0', 3]);
  assert.deepEqual(data.comments[1].reply_comment, [], 'the site’s null replies become an empty list');
  assert.equal(data.comments[1].user.verified, true, 'custom verification counts as verified');
});

test('comments: count trims a page (offset cursor) or gathers several pages', async () => {
  const few = await t.h.capability('clipsite_video_comments', { url: VIDEO, count: 4 });
  assert.deepEqual(few.data.comments.map((c: any) => c.cid), ['c0', 'c1', 'c2', 'c3']);
  assert.deepEqual({ cursor: few.data.cursor, hasMore: few.data.hasMore }, { cursor: 4, hasMore: true });
  const next = await t.h.capability('clipsite_video_comments', { url: VIDEO, cursor: few.data.cursor, count: 3 });
  assert.deepEqual(next.data.comments.map((c: any) => c.cid), ['c4', 'c5', 'c6']);
  const many = await t.h.capability('clipsite_video_comments', { url: VIDEO, count: 100 });
  assert.equal(many.data.comments.length, COMMENT_TOTAL);
  assert.deepEqual({ cursor: many.data.cursor, hasMore: many.data.hasMore }, { cursor: COMMENT_TOTAL, hasMore: false });
});

test('following and followers: native users mapped to user + stats, minTime paging', async () => {
  const page1 = await t.h.capability('clipsite_user_following', { handle: '@creator' });
  assert.deepEqual([t.fake.last().path, t.fake.last().query], ['/v1/tiktok/user/following', { handle: 'creator' }]);
  assert.equal(page1.data.followingList.length, 10);
  assert.deepEqual(page1.data.followingList[0], {
    user: { id: '71000000000000', uniqueId: 'star0', nickname: 'STAR0', avatarThumb: 'https://cdn.example/avt/star0~100x100.webp', signature: 'Bio of star0', verified: true, secUid: 'MS4w.star0', privateAccount: false },
    stats: { followerCount: 1000, followingCount: 10, heartCount: 50000, videoCount: 5, diggCount: 7 },
  });
  assert.deepEqual([page1.data.followingList[2].user.privateAccount, page1.data.hasMore], [true, true]);
  const page2 = await t.h.capability('clipsite_user_following', { handle: 'creator', minTime: page1.data.minCursor });
  assert.equal(t.fake.last().query.min_time, String(page1.data.minCursor));
  assert.deepEqual([page2.data.followingList.length, page2.data.hasMore], [FOLLOW_TOTAL - 10, false]);
  const followers = await t.h.capability('clipsite_user_followers', { handle: 'creator', count: 15 });
  assert.equal(followers.data.followers.length, FOLLOW_TOTAL, 'count gathers the second page');
  assert.equal(t.fake.last().path, '/v1/tiktok/user/followers');
});

test('transcript: WebVTT as returned, language as requested, region forms ask for their language', async () => {
  const { data } = await t.h.capability('clipsite_transcript', { videoUrl: VIDEO });
  assert.deepEqual(data, { transcript: WEBVTT, language: 'en', id: VIDEO_ID, originalUrl: VIDEO });
  const zh = await t.h.capability('clipsite_transcript', { videoUrl: VIDEO, preferredLanguage: 'zh-TW' });
  assert.deepEqual([t.fake.last().query.language, zh.data.language], ['zh', 'zh-TW']);
});

test('profile, profile videos and one video', async () => {
  const profile = await t.h.endpoint('clipsite_profile', { handle: 'creator' });
  assert.deepEqual([profile.data.user.uniqueId, profile.data.user.bioLink, profile.data.stats.heartCount], ['creator', 'https://creator.example', 190400000]);
  const videos = await t.h.capability('clipsite_profile_videos', { handle: 'creator' });
  assert.deepEqual([videos.data.aweme_list.length, videos.data.has_more, videos.data.hasMore], [5, 1, true]);
  const next = await t.h.capability('clipsite_profile_videos', { handle: 'creator', maxCursor: videos.data.max_cursor });
  assert.notEqual(next.data.aweme_list[0].aweme_id, videos.data.aweme_list[0].aweme_id);
  const one = await t.h.capability('clipsite_video', { url: VIDEO });
  assert.deepEqual({ id: one.data.id, createTime: one.data.createTime, iso: one.data.createTimeISO }, { id: VIDEO_ID, createTime: 1737600000, iso: '2025-01-23T02:40:00.000Z' });
});

test('5xx reads in the wording of the site the operation serves; without a key nothing reaches the provider', async () => {
  t.fake.failWith(500);
  await assert.rejects(t.h.capability('bizsite_company', { url: 'https://www.linkedin.com/company/example-co/' }), { status: 502, message: 'Failed to retrieve data from bizsite service.' });
  const bare = await pluginHarness(plugin, { env: { CREATOR_A_BASE_URL: t.fake.url } });
  const before = t.fake.requests.length;
  await assert.rejects(bare.capability('bizsite_profile', { url: 'https://www.linkedin.com/in/jane-example/' }), { status: 500, message: 'Service not configured. Please contact support.' });
  assert.equal(t.fake.requests.length, before, 'nothing reached the provider');
  await bare.close();
});
