/** transcript_a: the real client against the loopback fake of its contract (contracts §4), through the executor. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pluginHarness, providerFaultSuite, withFake } from '../../core/testing/index.js';
import plugin, { providerLanguage } from './index.js';
import { TA_GARBAGE, TA_JOB_FAILS, TA_LONG, TA_NO_CAPTIONS, TA_RESTRICTED, TA_VIDEO, startTranscriptAFake } from './fake.js';

const watch = (id: string) => `https://www.youtube.com/watch?v=${id}`;

const t = withFake(plugin, startTranscriptAFake);

/** The HTTP status and public text a call ends with (200 and '' on success). */
const outcome = (p: Promise<unknown>) => p.then(() => ({ status: 200, message: '' }), (e: { status?: number; message?: string }) => ({ status: e.status ?? 0, message: e.message ?? '' }));
const last = () => t.fake.requests.at(-1)!;

test('transcript: GET /transcript with x-api-key, the canonical URL, native mode, segments; lines merged in fives with [m:ss]', async () => {
  const { data, credits } = await t.h.endpoint('videosite_transcript', { videoUrl: `https://youtu.be/${TA_VIDEO}` });
  assert.deepEqual(data, {
    transcript: '[0:00] Hello and welcome to the fixture lab today we test transcripts from a provider\n[0:12] with seven lines the end',
    language: 'en',
    availableLanguages: ['en', 'de', 'es'],
  });
  assert.equal(credits, 20);
  assert.equal(last().path, '/v1/transcript');
  assert.deepEqual(last().query, { url: watch(TA_VIDEO), text: 'false', mode: 'native' });
});

test('capability get_videosite_transcript through transcript_a: the capability shape, options and the language rule', async () => {
  const de = await t.h.capability('get_videosite_transcript', { videoUrl: watch(TA_VIDEO), preferredLanguage: 'de', includeTimestamps: false, timestampsToCombine: 3 }, { provider: 'transcript_a' });
  assert.equal(de.provider, 'transcript_a');
  assert.deepEqual(de.data, { transcript: 'Hallo und willkommen im Testlabor heute testen wir\nTranskripte von einem Anbieter mit sieben Zeilen\ndas Ende', language: 'de' });
  // zh-Hans goes as zh; the video has no Chinese, so the first track comes back and language says which.
  const zh = await t.h.capability('get_videosite_transcript', { videoUrl: watch(TA_VIDEO), preferredLanguage: 'zh-Hans', timestampsToCombine: 7 }, { provider: 'transcript_a' });
  assert.equal(last().query.lang, 'zh');
  assert.deepEqual(zh.data, { transcript: '[0:00] Hello and welcome to the fixture lab today we test transcripts from a provider with seven lines the end', language: 'en' });
  assert.deepEqual([providerLanguage('en-US'), providerLanguage('iw'), providerLanguage('fil'), providerLanguage(undefined)], ['en', 'he', 'fil', undefined]);
});

test('206 transcript-unavailable → 404 No subtitles; restricted, unknown and garbage answers map to clear errors', async () => {
  assert.deepEqual(await outcome(t.h.endpoint('videosite_transcript', { videoUrl: watch(TA_NO_CAPTIONS) })), { status: 404, message: `No subtitles found for the video: ${TA_NO_CAPTIONS}` });
  assert.deepEqual(await outcome(t.h.endpoint('videosite_transcript', { videoUrl: watch('unknownVid0') })), { status: 404, message: 'Video not found or unavailable: unknownVid0.' });
  const restricted = await outcome(t.h.endpoint('videosite_transcript', { videoUrl: watch(TA_RESTRICTED) }));
  assert.equal(restricted.status, 404);
  assert.match(restricted.message, /^Video not found or unavailable: Restricted1 \(restricted: This video is age-restricted and requires login\)\.$/);
  assert.deepEqual(await outcome(t.h.endpoint('videosite_transcript', { videoUrl: watch(TA_GARBAGE) })), { status: 502, message: 'Received invalid data structure from videosite service.' });
  assert.deepEqual(await outcome(t.h.endpoint('videosite_transcript', { videoUrl: 'https://example.com/watch?v=x' })), {
    status: 400,
    message: "Invalid videosite video URL format: 'https://example.com/watch?v=x'. Expected a watch, youtu.be, shorts, live or embed URL.",
  });
});

providerFaultSuite({ plugin, fake: startTranscriptAFake, endpoint: 'videosite_transcript', input: { videoUrl: watch(TA_VIDEO) }, service: 'videosite' });

test('generateMissing: a 202 job is polled (queued, active, completed); a failed job is a 404, a lost one a 502', async () => {
  const gen = await pluginHarness(plugin, { env: { ...t.fake.env, TRANSCRIPT_A_GENERATE_MISSING: 'true' } });
  try {
    const before = t.fake.requests.length;
    const { data, credits } = await gen.endpoint('videosite_transcript', { videoUrl: watch(TA_LONG) });
    const calls = t.fake.requests.slice(before);
    assert.equal(calls[0]!.query.mode, 'auto');
    assert.deepEqual(calls.map((r) => r.path.replace(/[0-9a-f-]{36}$/, '<job>')), ['/v1/transcript', '/v1/transcript/<job>', '/v1/transcript/<job>', '/v1/transcript/<job>']);
    assert.equal(data.transcript.split('\n')[1], '[5:25] generated line 6 generated line 7 generated line 8 generated line 9 generated line 10');
    assert.equal(credits, 20);
    const short = await gen.endpoint('videosite_transcript', { videoUrl: watch(TA_NO_CAPTIONS), includeTimestamps: false });
    assert.equal(short.data.transcript, 'this transcript was generated by speech recognition');
    assert.deepEqual(await outcome(gen.endpoint('videosite_transcript', { videoUrl: watch(TA_JOB_FAILS) })), { status: 404, message: `No subtitles found for the video: ${TA_JOB_FAILS}` });
    t.fake.loseJobs = true;
    assert.deepEqual(await outcome(gen.endpoint('videosite_transcript', { videoUrl: watch(TA_LONG) })), { status: 502, message: 'Failed to retrieve data from videosite service.' });
    t.fake.loseJobs = false;
    // The caller hanging up stops the polling: the call settles although the job never ends.
    t.fake.jobPolls = Number.MAX_SAFE_INTEGER;
    const hangUp = new AbortController();
    const polled = new Promise<void>((resolve) => {
      const seen = t.fake.requests.length;
      const check = setInterval(() => t.fake.requests.slice(seen).some((r) => r.path.startsWith('/v1/transcript/')) && (clearInterval(check), resolve()), 5);
    });
    const call = gen.endpoint('videosite_transcript', { videoUrl: watch(TA_LONG) }, { signal: hangUp.signal });
    await polled;
    hangUp.abort();
    assert.notEqual((await outcome(call)).status, 200);
  } finally {
    t.fake.reset();
    await gen.close();
  }
});

test('search: filters as query parameters, pages by nextPageToken, every result with the same keys and a URL', async () => {
  const p1 = await t.h.endpoint('videosite_search', { query: 'surface go', uploadDate: 'month', sortBy: 'views', features: ['hd', '4k'] });
  assert.deepEqual(last().query, { query: 'surface go', uploadDate: 'month', sortBy: 'views', features: 'hd,4k' });
  assert.equal(p1.credits, 10);
  assert.deepEqual(p1.data.results.map((r: any) => [r.type, r.url]), [
    ['video', 'https://www.youtube.com/watch?v=srchVideo01'],
    ['channel', 'https://www.youtube.com/channel/UCfixtureLabChannel00001'],
  ]);
  assert.deepEqual(p1.data.results[1], {
    type: 'channel', id: 'UCfixtureLabChannel00001', url: 'https://www.youtube.com/channel/UCfixtureLabChannel00001', title: 'Fixture Lab', description: 'Tests all day.',
    thumbnail: 'https://yt3.example/a.jpg', duration: null, viewCount: null, uploadDate: null, channel: null, subscriberCount: 2750000, videoCount: 312,
  });
  const p2 = await t.h.endpoint('videosite_search', { query: 'surface go', nextPageToken: p1.data.nextPageToken });
  const p3 = await t.h.endpoint('videosite_search', { query: 'surface go', nextPageToken: p2.data.nextPageToken });
  assert.deepEqual([...p2.data.results, ...p3.data.results].map((r: any) => r.id), ['srchVideo02', 'PLfixture0001', 'srchVideo03']);
  assert.equal(p3.data.nextPageToken, null);
  assert.equal(p2.data.results[1].url, 'https://www.youtube.com/playlist?list=PLfixture0001');
  const videos = await t.h.endpoint('videosite_search', { query: 'surface go', type: 'video', limit: 50 });
  assert.deepEqual({ ids: videos.data.results.map((r: any) => r.id), next: videos.data.nextPageToken, total: videos.data.totalResults }, { ids: ['srchVideo01', 'srchVideo02', 'srchVideo03'], next: null, total: 3 });
  assert.deepEqual(await outcome(t.h.endpoint('videosite_search', { query: '' })), { status: 400, message: "'query' parameter is required and must be a non-empty string." });
  assert.deepEqual(await outcome(t.h.endpoint('videosite_search', { query: 'broken answer' })), { status: 502, message: 'Received invalid data structure from videosite service.' });
});

test('channel videos: the channel by handle, ID or URL; limit fills videos first; 400 without a channel, 404 for an unknown one', async () => {
  const all = await t.h.endpoint('videosite_channel_videos', { handle: 'fixturelab', limit: 10 });
  assert.deepEqual(last().query, { id: '@fixturelab', limit: '10', type: 'all' });
  assert.equal(all.data.videoIds.length, 8);
  assert.deepEqual({ shorts: all.data.shortIds, live: all.data.liveIds, credits: all.credits }, { shorts: ['labShort000', 'labShort001'], live: [], credits: 10 });
  const shorts = await t.h.endpoint('videosite_channel_videos', { url: 'https://www.youtube.com/c/fixturelab', type: 'short' });
  assert.equal(last().query.id, 'https://www.youtube.com/c/fixturelab');
  assert.deepEqual(shorts.data, { channelId: 'https://www.youtube.com/c/fixturelab', videoIds: [], shortIds: ['labShort000', 'labShort001', 'labShort002'], liveIds: [] });
  assert.deepEqual(await outcome(t.h.endpoint('videosite_channel_videos', {})), { status: 400, message: "At least one parameter is required: 'channelId', 'handle', or 'url'" });
  assert.deepEqual(await outcome(t.h.endpoint('videosite_channel_videos', { channelId: 'UCnobodyKnowsThisChann01' })), { status: 404, message: 'Channel not found: UCnobodyKnowsThisChann01' });
});
