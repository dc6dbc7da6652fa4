/**
 * The video-site routes (spec §4.1, §2.4–2.8; issue 12) through the real HTTP server, served by
 * videosite_native against a loopback server replaying the site's recorded answers: shapes,
 * transcripts in several languages with the fallback rule and merged timestamps, every
 * playability state, comments with a reply thread and a second page, channel and search pages,
 * the 400/404/502/503 texts, and credits charged only for what succeeded (spec §8.1).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startVideositeFake, type VideositeFake } from '../plugins/videosite_native/fake.js';

const watch = (id: string) => `https://www.youtube.com/watch?v=${id}`;

describe('video-site routes through videosite_native', () => {
  let fake: VideositeFake;
  let s: TestServer;
  let key: string;

  before(async () => {
    fake = await startVideositeFake();
    s = await startServer({ env: fake.env, serviceConfig: pluginsConfig(['videosite_native']) });
    ({ key } = await s.createKey({ credits: 100_000 }));
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
  const transcript = (body: Record<string, unknown>) => post('/api/v1/get-videosite-transcript', body);

  it('transcript: the preferred language, five segments a line by default, 20 credits', async () => {
    const r = await transcript({ videoUrl: 'https://youtu.be/GJLlxj_dtq8', preferredLanguage: 'de', requestSource: 'AUTOMATION_A' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.cost, 20);
    assert.deepEqual(r.json, {
      language: 'de',
      transcript: '[0:00] Hallo, das ist nur ein Test und nicht das Original drei vier fünf & mehr\n[0:07] sechs sieben, nach einer Minute',
    });
    const timedtext = fake.requests.filter((q) => q.path === '/api/timedtext').at(-1)!;
    assert.equal(timedtext.query.lang, 'de');
    assert.equal(timedtext.query.fmt, undefined, 'the srv1 document is asked for');
    const player = fake.requests.filter((q) => q.path === '/youtubei/v1/player').at(-1)!;
    assert.equal(player.body.context.client.clientName, 'ANDROID');
  });

  it('transcript: timestampsToCombine and includeTimestamps; the recorded English track with its markup decoded', async () => {
    const three = await transcript({ videoUrl: watch('GJLlxj_dtq8'), preferredLanguage: 'de', timestampsToCombine: 3 });
    assert.equal(three.json.transcript, '[0:00] Hallo, das ist nur ein Test und nicht das Original drei\n[0:04] vier fünf & mehr sechs\n[1:01] sieben, nach einer Minute');
    const plain = await transcript({ videoUrl: watch('GJLlxj_dtq8'), preferredLanguage: 'en', includeTimestamps: false, timestampsToCombine: 1 });
    assert.deepEqual(plain.json, { language: 'en', transcript: 'Hey, this is just a test\nthis is not the original transcript\njust something shorter, I made up for testing' });
  });

  it('transcript: an unavailable language falls back to the first track, manual before generated', async () => {
    const fr = await transcript({ videoUrl: watch('GJLlxj_dtq8'), preferredLanguage: 'fr' });
    assert.equal(fr.status, 200, fr.text);
    assert.equal(fr.json.language, 'zh');
    const ww1 = await transcript({ videoUrl: `https://m.youtube.com/watch?v=F1xioXWb8CY&t=3`, preferredLanguage: 'de' });
    assert.deepEqual(ww1.json, { language: 'en', transcript: '[0:00] In 1914 the great powers of Europe went to war.' });
  });

  it('transcript: 400 for bad input, before anything is charged or fetched', async () => {
    const calls = fake.requests.length;
    const cases: [unknown, RegExp][] = [
      [{}, /^videoUrl parameter is required$/],
      [{ videoUrl: watch('GJLlxj_dtq8'), preferredLanguage: 'xx' }, /preferredLanguage/],
      [{ videoUrl: 'https://example.com/watch?v=GJLlxj_dtq8' }, /Invalid videosite video URL/],
      [{ videoUrl: watch('GJLlxj_dtq8'), timestampsToCombine: 0 }, /timestampsToCombine/],
    ];
    for (const [body, message] of cases) {
      const r = await transcript(body as Record<string, unknown>);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.json.error, message);
      assert.equal(r.cost, 0);
    }
    assert.equal(fake.requests.length, calls);
  });

  it('every site state is a clear, uncharged answer', async () => {
    const states: [string, number, RegExp][] = [
      ['dsMFmonKDD4', 404, /^No subtitles found for the video: dsMFmonKDD4$/],
      ['LiveNoCapti', 404, /^No subtitles found for the video: LiveNoCapti$/],
      ['UpcomingLiv', 404, /^No subtitles found for the video: UpcomingLiv$/],
      ['Unavailable', 404, /unavailable: Unavailable/],
      ['PrivateVid1', 404, /private: PrivateVid1/],
      ['Njp5uhTorCo', 404, /age-restricted.*Njp5uhTorCo/],
      ['MembersOnly', 404, /members only: MembersOnly/],
      ['RegionBlock', 404, /region: RegionBlock/],
      ['Unplayable0', 404, /Custom Reason: Sub Reason 1/],
      ['BotBlocked0', 503, /^Rate limit exceeded\. Please try again later\.$/],
      ['TooManyReqs', 503, /^Rate limit exceeded\. Please try again later\.$/],
      ['MarkupBroke', 502, /^Received invalid data structure from videosite service\.$/],
    ];
    for (const [id, status, message] of states) {
      const r = await transcript({ videoUrl: `https://www.youtube.com/shorts/${id}` });
      assert.equal(r.status, status, `${id}: ${r.text}`);
      assert.match(r.json.error, message, id);
      assert.equal(r.cost, 0, id);
    }
    // The English track of this recording wants a proof-of-origin token: the site sends nothing back.
    const po = await transcript({ videoUrl: watch('PoTokenNeed'), preferredLanguage: 'en' });
    assert.equal(po.status, 502, po.text);
    assert.equal(po.cost, 0);
    const video = await post('/api/v1/videosite/video', { url: watch('PrivateVid1') });
    assert.deepEqual([video.status, video.cost], [404, 0]);
  });

  it('video: spec §2.6 detail with related videos, keywords, counts and the transcript on request', async () => {
    const r = await post('/api/v1/videosite/video', { url: 'https://youtu.be/GJLlxj_dtq8?si=abc', get_transcript: true });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.cost, 10);
    const v = r.json;
    assert.deepEqual(
      { id: v.id, type: v.type, title: v.title, views: v.viewCountInt, likes: v.likeCountInt, likesText: v.likeCountText, comments: v.commentCountInt, published: v.publishDate, durationMs: v.durationMs, duration: v.durationFormatted },
      { id: 'GJLlxj_dtq8', type: 'video', title: 'Surface Go Review - It’s Awesome', views: 1856109, likes: 21418, likesText: '21K', comments: 3400, published: '2018-08-10T00:00:00.000Z', durationMs: 316000, duration: '5:16' },
    );
    assert.deepEqual(v.channel, { id: 'UCfixtureLabChannel00001', url: 'https://www.youtube.com/@fixturelab', handle: '@fixturelab', title: 'Fixture Lab', subscriberCountText: '1.23M subscribers', thumbnail: 'https://yt3.ggpht.com/fixture=s88' });
    assert.equal(v.keywords.length, 15);
    assert.deepEqual(v.watchNextVideos.map((w: any) => [w.id, w.lengthText, w.viewCountInt, w.channel.handle]), [['F1xioXWb8CY', '10:05', 987654, '@historyfixture'], ['dsMFmonKDD4', '1:02:03', 12000, '@lecturefixture']]);
    assert.equal(v.watchNextVideos[0].videoUrl, 'https://www.youtube.com/watch?v=F1xioXWb8CY');
    // No preferred language on this route: English when the video has it.
    assert.deepEqual(v.transcript[1], { text: 'this is not the original transcript', startMs: '1540', endMs: '5700', startTimeText: '0:01', lang: 'en' });
    assert.equal(v.transcript_only_text, 'Hey, this is just a test this is not the original transcript just something shorter, I made up for testing');
    const without = await post('/api/v1/videosite/video', { url: watch('GJLlxj_dtq8') });
    assert.equal('transcript' in without.json, false);
    // A `next` answer with related videos only (no info renderers, as the site sometimes sends):
    // the detail comes from the player answer, and what only `next` knows is null.
    const sparse = await post('/api/v1/videosite/video', { url: watch('F1xioXWb8CY') });
    assert.equal(sparse.status, 200, sparse.text);
    assert.equal(sparse.cost, 10);
    assert.deepEqual(
      { title: sparse.json.title, views: sparse.json.viewCountInt, durationMs: sparse.json.durationMs, channel: [sparse.json.channel.id, sparse.json.channel.title], likes: sparse.json.likeCountInt, comments: sparse.json.commentCountInt, dateText: sparse.json.publishDateText, related: sparse.json.watchNextVideos },
      { title: 'The Tide Is Turning - Russian Civil War Fall 1919 I THE GREAT WAR 1919', views: 274558, durationMs: 1509000, channel: ['UCUcyEsEjhPEDf69RRVhRh4A', 'The Great War'], likes: null, comments: null, dateText: null, related: [] },
    );
    const bad = await post('/api/v1/videosite/video', { url: '' });
    assert.deepEqual([bad.status, bad.json.error, bad.cost], [400, "'url' parameter is required and must be a non-empty string.", 0]);
  });

  it('video: an upcoming stream is published at its scheduled start; waiting and watching counts are not views', async () => {
    const upcoming = await post('/api/v1/videosite/video', { url: watch('SchedStream') });
    assert.equal(upcoming.status, 200, upcoming.text);
    assert.equal(upcoming.cost, 10);
    const u = upcoming.json;
    assert.deepEqual(
      [u.publishDate, u.liveStatus, u.scheduledStartTime, u.viewCountInt, u.viewCountText, u.concurrentViewers, u.concurrentViewersText],
      ['2027-01-01T09:00:00.000Z', 'upcoming', '2027-01-01T09:00:00.000Z', null, null, 6, '6 waiting'],
    );
    const live = (await post('/api/v1/videosite/video', { url: 'https://www.youtube.com/live/LiveStreamA' })).json;
    assert.deepEqual([live.liveStatus, live.viewCountInt, live.viewCountText, live.concurrentViewers], ['live', 56789, '56,789 views', 1234]);
    // The v1 reference documents those fields (the executor's output check reads the same schema).
    const reference = await s.call('GET', '/openapi/v1.json');
    assert.equal(reference.status, 200);
    for (const field of ['liveStatus', 'scheduledStartTime', 'concurrentViewers', 'concurrentViewersText']) assert.ok(reference.text.includes(`"${field}"`), field);
  });

  it('comments: a reply thread, a second page, newest order, and comments turned off', async () => {
    const p1 = await post('/api/v1/videosite/video/comments', { url: 'https://www.youtube.com/watch?v=xaQJbozY_Is' });
    assert.equal(p1.status, 200, p1.text);
    assert.equal(p1.cost, 10);
    const [first, second] = p1.json.comments;
    assert.deepEqual(first.engagement, { likes: 1200, replies: 2 });
    assert.deepEqual(second.author, { name: '@fixturelab', channelId: 'UCfixtureLabChannel00001', isVerified: true, isCreator: true, avatarUrl: 'https://yt3.ggpht.com/UCfixtureLabChannel00001=s88-c-k', channelUrl: 'https://www.youtube.com/@fixturelab' });
    assert.equal(second.publishedTimeText, '2 years ago (edited)');
    assert.ok(Date.parse(second.publishedTime) < Date.now() - 365 * 864e5);
    assert.equal(p1.json.continuationToken, 'COMMENTS_PAGE_2');
    const replies = await post('/api/v1/videosite/video/comments', { url: watch('xaQJbozY_Is'), continuationToken: first.repliesContinuationToken });
    assert.deepEqual(replies.json.comments.map((c: any) => [c.id, c.replyLevel, c.engagement.likes]), [['UgwFixtureTopComment0001.Reply0001', 1, 12], ['UgwFixtureTopComment0001.Reply0002', 1, 0]]);
    assert.equal(replies.json.continuationToken, 'REPLIES_TOKEN_1_MORE');
    const p2 = await post('/api/v1/videosite/video/comments', { url: watch('xaQJbozY_Is'), continuationToken: p1.json.continuationToken });
    assert.deepEqual([p2.json.comments.map((c: any) => c.id), p2.json.continuationToken], [['UgwFixtureTopComment0003'], null]);
    const newest = await post('/api/v1/videosite/video/comments', { url: watch('xaQJbozY_Is'), order: 'newest' });
    assert.equal(newest.json.comments[0].content, 'Just watched this today.');
    const off = await post('/api/v1/videosite/video/comments', { url: watch('CommentsOff') });
    assert.deepEqual([off.status, off.json], [200, { comments: [], continuationToken: null }]);
    const stale = await post('/api/v1/videosite/video/comments', { url: watch('xaQJbozY_Is'), continuationToken: 'nonsense' });
    assert.deepEqual([stale.status, stale.cost], [400, 0]);
  });

  it('channel: spec §2.4 by handle, id or URL, with the about panel; unknown handle 404', async () => {
    const r = await post('/api/v1/videosite/channel', { url: 'https://www.youtube.com/@fixturelab/videos' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.cost, 10);
    const { avatar, links, ...rest } = r.json;
    assert.deepEqual(rest, {
      channelId: 'UCfixtureLabChannel00001', channel: '@fixturelab', name: 'Fixture Lab', description: 'Reviews of small computers.\n\nBusiness: see links.',
      subscriberCount: 1230000, subscriberCountText: '1.23M subscribers', videoCountText: '312 videos', viewCountText: '245,678,901 views', joinedDateText: 'Mar 4, 2011',
      tags: 'reviews tablets "small computers"', country: 'Germany', email: null, store: 'https://fixturelab.myshopify.com', twitter: 'https://twitter.com/fixturelab',
      instagram: 'https://instagram.com/fixturelab', url: 'https://www.youtube.com/channel/UCfixtureLabChannel00001', banner: 'https://yt3.googleusercontent.com/fixturelab-banner=w2560',
    });
    assert.equal(links.length, 3);
    assert.equal(avatar.image.sources[0].url, 'https://yt3.googleusercontent.com/fixturelab=s900-c-k');
    const byLegacy = await post('/api/v1/videosite/channel', { url: 'youtube.com/c/FixtureLab' });
    assert.equal(byLegacy.json.channelId, 'UCfixtureLabChannel00001');
    const none = await post('/api/v1/videosite/channel', {});
    assert.deepEqual([none.status, none.json.error], [400, "At least one parameter is required: 'channelId', 'handle', or 'url'"]);
    const unknown = await post('/api/v1/videosite/channel', { handle: 'nobodyhere' });
    assert.deepEqual([unknown.status, unknown.json.error, unknown.cost], [404, 'Channel not found: @nobodyhere', 0]);
  });

  it('channel videos (latest, popular, next page) and shorts', async () => {
    const latest = await post('/api/v1/videosite/channel-videos', { handle: '@fixturelab' });
    assert.equal(latest.status, 200, latest.text);
    assert.deepEqual(latest.json.videos.map((v: any) => v.id), ['GJLlxj_dtq8', 'F1xioXWb8CY']);
    assert.deepEqual(latest.json.videos[0].channel, { id: 'UCfixtureLabChannel00001', title: 'Fixture Lab', handle: '@fixturelab', url: 'https://www.youtube.com/@fixturelab' });
    assert.equal(latest.json.videos[0].description, undefined);
    assert.equal(latest.json.success, true);
    const popular = await post('/api/v1/videosite/channel-videos', { channelId: 'UCfixtureLabChannel00001', sort: 'popular', includeExtras: 'true' });
    assert.deepEqual([popular.json.videos.map((v: any) => v.id), popular.json.continuationToken], [['F1xioXWb8CY', 'GJLlxj_dtq8'], 'POPULAR_PAGE_2']);
    assert.equal(popular.json.videos[0].description, 'History, fast.');
    const next = await post('/api/v1/videosite/channel-videos', { channelId: 'UCfixtureLabChannel00001', continuationToken: latest.json.continuationToken });
    assert.deepEqual([next.json.videos.map((v: any) => [v.id, v.lengthSeconds]), next.json.continuationToken], [[['dsMFmonKDD4', 3723]], null]);
    const shorts = await post('/api/v1/videosite/channel/shorts', { handle: 'fixturelab' });
    assert.deepEqual(shorts.json.shorts.map((v: any) => [v.id, v.type, v.url, v.viewCountInt]), [
      ['ShortFixt01', 'short', 'https://www.youtube.com/shorts/ShortFixt01', 1200000],
      ['ShortFixt02', 'short', 'https://www.youtube.com/shorts/ShortFixt02', 45000],
    ]);
  });

  it('search: videos, shorts, channels and playlists, filters as the site encodes them, next page', async () => {
    const r = await post('/api/v1/videosite/search', { query: 'surface go review' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.cost, 10);
    assert.deepEqual(r.json.videos.map((v: any) => v.id), ['GJLlxj_dtq8', 'F1xioXWb8CY']);
    assert.deepEqual(r.json.shorts.map((v: any) => v.id), ['ShortFixt01']);
    assert.deepEqual(r.json.channels[0], { id: 'UCfixtureLabChannel00001', title: 'Fixture Lab', handle: '@fixturelab', url: 'https://www.youtube.com/@fixturelab', thumbnail: 'https://yt3.googleusercontent.com/fixturelab=s176-c-k', subscriberCountText: '1.23M subscribers', description: 'Reviews of small computers.' });
    assert.deepEqual([r.json.playlists[0].id, r.json.playlists[0].videoCount], ['PLfixtureTabletReviews01', 12]);
    const p2 = await post('/api/v1/videosite/search', { query: 'surface go review', continuationToken: r.json.continuationToken });
    assert.deepEqual(p2.json.videos.map((v: any) => v.id), ['dsMFmonKDD4']);
    await post('/api/v1/videosite/search', { query: 'tablets', uploadDate: 'this_week', sortBy: 'popular', filter: 'videos' });
    // sort 3 (view count), filters { upload date 3 (this week), type 1 (video) }: the site's own sp value.
    assert.equal(fake.requests.at(-1)!.body.params, 'CAMSBAgDEAE=');
    const bad = await post('/api/v1/videosite/search', { query: 'x', uploadDate: 'yesterday' });
    assert.deepEqual([bad.status, bad.cost], [400, 0]);
  });

  it('v2: get_videosite_transcript is served by videosite_native', async () => {
    const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'get_videosite_transcript', input: { videoUrl: watch('F1xioXWb8CY') } } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.data.language, r.json.meta.provider, r.json.meta.credits], ['en', 'videosite_native', 20]);
  });
});
