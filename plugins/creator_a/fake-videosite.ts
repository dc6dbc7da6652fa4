/**
 * The video-site routes of the creator_a fake (contracts §3 `/v1/youtube/*`), with the provider's
 * own field names: a channel, two pages of channel videos, a video with related videos, two pages
 * of comments, and a transcript as timed segments. `NoCaptions1` has no captions and comments
 * disabled; any other id is unknown (404).
 */

import CHANNEL from './recorded/videosite-channel.json' with { type: 'json' };
import VIDEO from './recorded/videosite-video.json' with { type: 'json' };

/** The video the examples use (its recorded answer). */
export const YT_VIDEO = VIDEO.id;
/** A video without captions, with comments disabled. */
export const YT_QUIET = 'NoCaptions1';
/** The channel of YT_VIDEO. */
export const YT_CHANNEL = CHANNEL.channelId;

type Answer = [number, unknown];
const ok = (body: Record<string, unknown>): Answer => [200, { success: true, credits_remaining: 9999, credits_charged: 1, ...body }];
const missing: Answer = [404, { success: false, message: 'Not found' }];

const idOf = (url = '') => /(?:v=|youtu\.be\/|shorts\/)([\w-]{11})/.exec(url)?.[1];

const listed = (n: number) => ({
  type: 'video',
  id: `vid${String(n).padStart(8, '0')}`,
  url: `https://www.youtube.com/watch?v=vid${String(n).padStart(8, '0')}`,
  title: `Episode ${n}`,
  description: `About episode ${n}`,
  thumbnail: `https://i.ytimg.example/vi/${n}/hqdefault.jpg`,
  channel: { title: '', thumbnail: null },
  viewCountText: `${n * 1000} views`,
  viewCountInt: n * 1000,
  publishedTimeText: `${n} days ago`,
  publishedTime: new Date(Date.UTC(2025, 0, 30 - n)).toISOString(),
  lengthText: '37:25',
  lengthSeconds: 2245,
  badges: [],
});

const comment = (n: number, reply = false) => ({
  id: `Ugz${n}${reply ? '.r' : ''}`,
  content: reply ? `Reply ${n}` : `Comment ${n}`,
  publishedTimeText: '2 years ago',
  publishedTime: '2023-01-01T00:00:00.000Z',
  replyLevel: reply ? 1 : 0,
  author: { name: `@viewer${n}`, channelId: `UCviewer${n}`, isVerified: n === 1, isCreator: false, avatarUrl: `https://yt3.example/v${n}`, channelUrl: `https://www.youtube.com/@viewer${n}` },
  engagement: { likes: 10 * n, replies: reply ? null : 1 },
  repliesContinuationToken: reply ? undefined : `rep${n}`,
});

/** Twelve 2.5-second caption segments, as the provider's transcript route returns them. */
const SEGMENTS = Array.from({ length: 12 }, (_, i) => ({ text: `line ${i + 1}`, startMs: String(i * 2500), endMs: String(i * 2500 + 2500), startTimeText: `0:${String(Math.floor((i * 2500) / 1000)).padStart(2, '0')}` }));

/** The answer of a video-site route, or undefined for a path that is not one. */
export function videositeRoute(path: string, q: Record<string, string>): Answer | undefined {
  switch (path) {
    case '/v1/youtube/channel':
      return q.channelId === YT_CHANNEL || q.handle === 'ExampleShow' || q.url?.includes('/c/ExampleShow') ? ok(CHANNEL) : missing;
    case '/v1/youtube/channel-videos':
      if (q.channelId !== YT_CHANNEL && q.handle !== 'ExampleShow') return missing;
      return q.continuationToken === 'page2' ? ok({ videos: [4, 5].map(listed), continuationToken: null }) : ok({ videos: [1, 2, 3].map(listed), continuationToken: 'page2' });
    case '/v1/youtube/video':
      return idOf(q.url) === YT_VIDEO ? ok(VIDEO) : idOf(q.url) === YT_QUIET ? ok({ ...VIDEO, id: YT_QUIET, url: `https://www.youtube.com/watch?v=${YT_QUIET}` }) : missing;
    case '/v1/youtube/video/comments':
      if (idOf(q.url) === YT_QUIET) return ok({ comments: [], continuationToken: null });
      if (idOf(q.url) !== YT_VIDEO) return missing;
      return q.continuationToken === 'c2' ? ok({ comments: [comment(3)], continuationToken: null }) : ok({ comments: [comment(1), comment(1, true), comment(2)], continuationToken: 'c2' });
    case '/v1/youtube/video/transcript': {
      const id = idOf(q.url);
      if (id === YT_QUIET) return ok({ videoId: id, type: 'video', url: q.url, transcript: null, transcript_only_text: null });
      if (id !== YT_VIDEO) return missing;
      // Tracks in en and de; another language gets the first available (en), as the provider does.
      const language = q.language === 'de' ? 'de' : 'en';
      const segments = language === 'de' ? SEGMENTS.map((s) => ({ ...s, text: s.text.replace('line', 'Zeile') })) : SEGMENTS;
      return ok({ videoId: id, type: 'video', url: q.url, transcript: segments, transcript_only_text: segments.map((s) => s.text).join(' '), language });
    }
    default:
      return undefined;
  }
}
