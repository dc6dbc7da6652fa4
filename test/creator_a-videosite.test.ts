/**
 * creator_a as the video-site fallback (spec §4.1, §4.10; issue 13), through the real server: with
 * the site blocking this server (every request to it answers 429), the native provider fails and
 * creator_a answers in the same §2.4–2.8 shapes, `meta.fallbacks` naming the provider that failed;
 * a key whose policy blocks the native provider goes straight to creator_a.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { serveLoopback, type LoopbackServer } from '../core/testing/index.js';
import deployment from '../plugins.config.js';
import { startFake as startCreatorAFake, type CreatorAFake } from '../plugins/creator_a/fake.js';
import { YT_CHANNEL, YT_QUIET, YT_VIDEO } from '../plugins/creator_a/fake-videosite.js';

const VIDEO = `https://www.youtube.com/watch?v=${YT_VIDEO}`;
const VIDEOSITE_CAPS = ['get_videosite_transcript', 'videosite_channel', 'videosite_video', 'videosite_video_comments', 'videosite_channel_videos'];

describe('creator_a serves the video-site operations when the native provider cannot', () => {
  let fake: CreatorAFake;
  let site: LoopbackServer;
  let s: TestServer;
  let key: string;

  before(async () => {
    fake = await startCreatorAFake();
    // The video site refusing this server ("unusual traffic"): every request is a 429.
    site = await serveLoopback((req, res) => {
      req.resume();
      res.writeHead(429, { 'content-type': 'text/html' });
      res.end('<html><body>Our systems have detected unusual traffic from your computer network.</body></html>');
    });
    // The deployment's order, limited to the two providers this suite starts.
    const order = Object.fromEntries(VIDEOSITE_CAPS.map((c) => [c, deployment.providerOrder![c]!.filter((p) => p === 'videosite_native' || p === 'creator_a')]));
    s = await startServer({
      env: { ...fake.env, VIDEOSITE_NATIVE_BASE_URL: site.url, ALLOW_PRIVATE_NETWORK: 'true' },
      serviceConfig: pluginsConfig(['videosite_native', 'creator_a'], order),
    });
    ({ key } = await s.createKey({ credits: 10_000 }));
  });
  after(async () => {
    await s?.close();
    await fake?.close();
    await site?.close();
  });

  it('deployment order: native first, creator_a after it, for every operation creator_a serves', () => {
    for (const c of VIDEOSITE_CAPS) {
      const order = deployment.providerOrder![c]!;
      assert.equal(order[0], 'videosite_native', c);
      assert.equal(order.at(-1), 'creator_a', c);
    }
  });

  it('v2 transcript: creator_a answers, meta.fallbacks names the native provider, lines merged in fives', async () => {
    const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'get_videosite_transcript', input: { videoUrl: VIDEO } } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.meta.provider, 'creator_a');
    assert.deepEqual(r.json.meta.fallbacks, [{ provider: 'videosite_native', code: 'UPSTREAM_RATE_LIMITED' }]);
    assert.equal(r.json.meta.credits, 20);
    assert.deepEqual(r.json.data, {
      transcript: '[0:00] line 1 line 2 line 3 line 4 line 5\n[0:12] line 6 line 7 line 8 line 9 line 10\n[0:25] line 11 line 12',
      language: 'en',
    });
  });

  it('v1 transcript: options and language fallback as the spec says; no captions → free 404', async () => {
    const de = await s.call('POST', '/api/v1/get-videosite-transcript', { key, body: { videoUrl: VIDEO, preferredLanguage: 'de', includeTimestamps: false, timestampsToCombine: 6 } });
    assert.equal(de.status, 200, de.text);
    assert.deepEqual(de.json, { transcript: 'Zeile 1 Zeile 2 Zeile 3 Zeile 4 Zeile 5 Zeile 6\nZeile 7 Zeile 8 Zeile 9 Zeile 10 Zeile 11 Zeile 12', language: 'de' });
    const fr = await s.call('POST', '/api/v1/get-videosite-transcript', { key, body: { videoUrl: VIDEO, preferredLanguage: 'fr' } });
    assert.equal(fr.json.language, 'en', 'the first available track, and language says which');
    const before = (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
    const none = await s.call('POST', '/api/v1/get-videosite-transcript', { key, body: { videoUrl: `https://youtu.be/${YT_QUIET}` } });
    assert.deepEqual({ status: none.status, body: none.json }, { status: 404, body: { error: `No subtitles found for the video: ${YT_QUIET}` } });
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, before);
  });

  it('v1 channel, channel videos (two pages), video with transcript, comments (two pages) in the shared shapes', async () => {
    const ch = await s.call('POST', '/api/v1/videosite/channel', { key, body: { handle: '@ExampleShow' } });
    assert.equal(ch.status, 200, ch.text);
    assert.equal(fake.requests.at(-1)!.query.handle, 'ExampleShow');
    assert.deepEqual({ id: ch.json.channelId, channel: ch.json.channel, subs: ch.json.subscriberCount, instagram: ch.json.instagram }, { id: YT_CHANNEL, channel: '@ExampleShow', subs: 2750000, instagram: null });

    const p1 = await s.call('POST', '/api/v1/videosite/channel-videos', { key, body: { channelId: YT_CHANNEL, sort: 'newest' } });
    assert.equal(p1.status, 200, p1.text);
    assert.equal(fake.requests.at(-1)!.query.sort, 'latest');
    const p2 = await s.call('POST', '/api/v1/videosite/channel-videos', { key, body: { channelId: YT_CHANNEL, continuationToken: p1.json.continuationToken } });
    assert.deepEqual([...p1.json.videos, ...p2.json.videos].map((v: any) => v.title), ['Episode 1', 'Episode 2', 'Episode 3', 'Episode 4', 'Episode 5']);
    assert.equal(p2.json.continuationToken, null);
    assert.deepEqual(Object.keys(p1.json.videos[0]).sort(), ['channel', 'id', 'lengthText', 'publishDate', 'publishDateText', 'thumbnail', 'title', 'type', 'url', 'viewCountInt', 'viewCountText']);

    const v = await s.call('POST', '/api/v1/videosite/video', { key, body: { url: VIDEO, get_transcript: true } });
    assert.equal(v.status, 200, v.text);
    assert.equal(v.json.durationMs, 754000);
    assert.equal(v.json.watchNextVideos[0].url, 'https://www.youtube.com/watch?v=vid00000009');
    assert.deepEqual(v.json.transcript[0], { text: 'line 1', startMs: '0', endMs: '2500', startTimeText: '0:00' });
    assert.match(v.json.transcript_only_text, /^line 1 line 2 .* line 12$/);
    const plain = await s.call('POST', '/api/v1/videosite/video', { key, body: { url: VIDEO } });
    assert.ok(!('transcript' in plain.json) && !('transcript_only_text' in plain.json), 'transcript fields only when requested');

    const c1 = await s.call('POST', '/api/v1/videosite/video/comments', { key, body: { url: VIDEO, order: 'newest' } });
    assert.equal(c1.status, 200, c1.text);
    assert.equal(fake.requests.at(-1)!.query.order, 'newest');
    assert.deepEqual(c1.json.comments.map((c: any) => [c.id, c.replyLevel]), [['Ugz1', 0], ['Ugz1.r', 1], ['Ugz2', 0]]);
    assert.deepEqual(c1.json.comments[0].engagement, { likes: 10, replies: 1 });
    const c2 = await s.call('POST', '/api/v1/videosite/video/comments', { key, body: { url: VIDEO, continuationToken: c1.json.continuationToken } });
    assert.deepEqual({ ids: c2.json.comments.map((c: any) => c.id), next: c2.json.continuationToken }, { ids: ['Ugz3'], next: null });
    const off = await s.call('POST', '/api/v1/videosite/video/comments', { key, body: { url: `https://www.youtube.com/shorts/${YT_QUIET}` } });
    assert.deepEqual({ status: off.status, body: off.json }, { status: 200, body: { comments: [], continuationToken: null } }, 'comments disabled → empty list');
  });

  it('a key whose policy blocks the native provider is served by creator_a directly', async () => {
    const { key: k } = await s.createKey({ credits: 100, policy: { block: ['videosite_native'] } });
    const r = await s.call('POST', '/api/v2/run', { key: k, body: { type: 'capability', id: 'get_videosite_transcript', input: { videoUrl: VIDEO } } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.meta.provider, 'creator_a');
    assert.equal(r.json.meta.fallbacks, undefined);
  });

  it('creator_a.videosite_transcript is a public v2 endpoint (spec §4.10)', async () => {
    const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'creator_a.videosite_transcript', input: { videoUrl: VIDEO, includeTimestamps: false } } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.data.transcript.split('\n')[0], 'line 1 line 2 line 3 line 4 line 5');
    assert.equal(r.json.meta.credits, 20);
  });
});
