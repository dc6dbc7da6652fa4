/**
 * videosite_native: live streams (live.ts) through the executor against the loopback fake, whose
 * answers for them are written in the site's formats (fixtures/README.md). What is checked: an
 * upcoming stream is published when it is scheduled to start, and the counter under the title
 * ("6 waiting", "1,234 watching now") is an audience, never a view count; the same for related
 * videos. The full route set runs through the server in test/videosite.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { providerFaultSuite, withFake } from '../../core/testing/index.js';
import plugin from './index.js';
import { startVideositeFake } from './fake.js';
import { liveInfoOf, scheduledStartOf, viewsOf } from './live.js';
import type { PlayerResponse } from './player.js';

const watch = (id: string) => `https://www.youtube.com/watch?v=${id}`;

const t = withFake(plugin, startVideositeFake);

// The site needs no key and has no account: no refused key, no credits to run out of, nothing to configure.
providerFaultSuite({ plugin, fake: startVideositeFake, capability: 'videosite_video', input: { url: watch('GJLlxj_dtq8') }, service: 'videosite', expect: { 'key refused': false, 'out of credits': false, 'not configured': false } });

test('upcoming stream: published at its scheduled start, the waiting count apart from views', async () => {
  const { data: v, credits } = await t.h.capability('videosite_video', { url: watch('SchedStream') });
  assert.equal(credits, 10);
  assert.deepEqual(
    { publishDate: v.publishDate, publishDateText: v.publishDateText, liveStatus: v.liveStatus, scheduledStartTime: v.scheduledStartTime },
    { publishDate: '2027-01-01T09:00:00.000Z', publishDateText: 'Scheduled for Jan 1, 2027', liveStatus: 'upcoming', scheduledStartTime: '2027-01-01T09:00:00.000Z' },
  );
  // The player says "0" views and the counter "6 waiting": no view count is stated, six people wait.
  assert.deepEqual(
    { viewCountInt: v.viewCountInt, viewCountText: v.viewCountText, concurrentViewers: v.concurrentViewers, concurrentViewersText: v.concurrentViewersText },
    { viewCountInt: null, viewCountText: null, concurrentViewers: 6, concurrentViewersText: '6 waiting' },
  );
  assert.deepEqual([v.durationMs, v.durationFormatted], [0, null], 'nothing to time before it starts');
  assert.deepEqual([v.title, v.channel.handle, v.keywords], ['Launch stream (scheduled)', '@fixturelab', ['fixture', 'live']]);
});

test('live stream: the player’s view count kept, the watching count apart', async () => {
  const before = Date.now();
  const { data: v } = await t.h.capability('videosite_video', { url: `https://www.youtube.com/live/LiveStreamA` });
  assert.deepEqual(
    { liveStatus: v.liveStatus, scheduledStartTime: v.scheduledStartTime, viewCountInt: v.viewCountInt, viewCountText: v.viewCountText, concurrentViewers: v.concurrentViewers, concurrentViewersText: v.concurrentViewersText },
    { liveStatus: 'live', scheduledStartTime: null, viewCountInt: 56789, viewCountText: '56,789 views', concurrentViewers: 1234, concurrentViewersText: '1,234 watching now' },
  );
  assert.deepEqual([v.durationMs, v.durationFormatted], [0, null]);
  // "Started streaming 2 hours ago": about two hours before the call.
  assert.equal(v.publishDateText, 'Started streaming 2 hours ago');
  const started = Date.parse(v.publishDate);
  assert.ok(Math.abs(before - 2 * 36e5 - started) < 60_000, v.publishDate);
});

test('related streams: live and upcoming items carry their audience and schedule, not views', async () => {
  const { data: v } = await t.h.capability('videosite_video', { url: watch('LiveStreamA') });
  const [live, upcoming, streamed] = v.watchNextVideos;
  assert.deepEqual(
    { id: live.id, liveStatus: live.liveStatus, viewCountText: live.viewCountText, viewCountInt: live.viewCountInt, concurrentViewers: live.concurrentViewers, concurrentViewersText: live.concurrentViewersText, publishDate: live.publishDate },
    { id: 'RelLiveNow1', liveStatus: 'live', viewCountText: null, viewCountInt: null, concurrentViewers: 1448, concurrentViewersText: '1,448 watching', publishDate: null },
  );
  assert.deepEqual(
    { id: upcoming.id, liveStatus: upcoming.liveStatus, scheduledStartTime: upcoming.scheduledStartTime, publishDate: upcoming.publishDate, viewCountInt: upcoming.viewCountInt },
    { id: 'RelUpcomin1', liveStatus: 'upcoming', scheduledStartTime: '2027-01-08T09:00:00.000Z', publishDate: '2027-01-08T09:00:00.000Z', viewCountInt: null },
  );
  // A stream that has ended is an ordinary video with its views.
  assert.deepEqual([streamed.id, streamed.viewCountInt, streamed.lengthText, 'liveStatus' in streamed], ['RelStreamed', 158450, '2:11:38', false]);
});

test('an ordinary video: liveStatus none, no audience, views as before', async () => {
  const { data: v } = await t.h.capability('videosite_video', { url: watch('GJLlxj_dtq8') });
  assert.deepEqual(
    { liveStatus: v.liveStatus, scheduledStartTime: v.scheduledStartTime, concurrentViewers: v.concurrentViewers, concurrentViewersText: v.concurrentViewersText, viewCountInt: v.viewCountInt, viewCountText: v.viewCountText, publishDate: v.publishDate },
    { liveStatus: 'none', scheduledStartTime: null, concurrentViewers: null, concurrentViewersText: null, viewCountInt: 1856109, viewCountText: '1,856,109 views', publishDate: '2018-08-10T00:00:00.000Z' },
  );
});

test('the schedule from either place the player states it, the slate first', () => {
  const slate = { playabilityStatus: { liveStreamability: { liveStreamabilityRenderer: { offlineSlate: { liveStreamOfflineSlateRenderer: { scheduledStartTime: '1677592800' } } } } } };
  const micro = { microformat: { playerMicroformatRenderer: { liveBroadcastDetails: { startTimestamp: '2023-02-28T14:00:00+00:00' } } } };
  assert.equal(scheduledStartOf(slate), '2023-02-28T14:00:00.000Z');
  assert.equal(scheduledStartOf(micro), '2023-02-28T14:00:00.000Z', 'a WEB answer: microformat only');
  assert.equal(scheduledStartOf({}), null);
  const both = { ...micro, playabilityStatus: { liveStreamability: { liveStreamabilityRenderer: { offlineSlate: { liveStreamOfflineSlateRenderer: { scheduledStartTime: '1677596400' } } } } } };
  assert.equal(scheduledStartOf(both), '2023-02-28T15:00:00.000Z', 'rescheduled: the slate is what the player shows now');
  // A stream that is not upcoming has no schedule to report, whatever the answer still carries.
  const ended: PlayerResponse = { ...micro, videoDetails: { isLiveContent: true } };
  assert.deepEqual(liveInfoOf(ended, { videoViewCountRenderer: { viewCount: { simpleText: '12,345 views' } } }), { status: 'ended', scheduledStartTime: null, concurrentViewersText: null, concurrentViewers: null });
});

test('a 0 from the player is a count only for a video that is not upcoming or live', () => {
  const p = (viewCount: string, flags: object): PlayerResponse => ({ videoDetails: { viewCount, ...flags } });
  assert.equal(viewsOf(p('0', { isLive: true, isLiveContent: true }), 'live'), null);
  assert.equal(viewsOf(p('0', { isUpcoming: true }), 'upcoming'), null);
  assert.equal(viewsOf(p('0', {}), 'none'), 0);
  assert.equal(viewsOf(p('42', { isUpcoming: true }), 'upcoming'), 42);
  assert.equal(viewsOf(p('', {}), 'none'), null);
});
