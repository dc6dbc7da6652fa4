/**
 * creator_a as the fallback provider of the video-site operations (spec §4.1, §4.10; issue 13):
 * channel, channel videos, video, comments and transcript from the provider's video-site routes
 * (contracts §3), mapped onto the shared §2.4–2.8 shapes so an answer reads the same whichever
 * provider served it. Listed after the native provider in `providerOrder`.
 */
import { InputError, NotFoundError, defineEndpoint, flat, invalidStructure, type RunContext } from '../../core/sdk.js';
import { channelRefOf, formatTranscript, getVideositeTranscript, noSubtitles, videoIdOf, videositeChannel, videositeChannelVideos, videositeVideo, videositeVideoComments, TranscriptOutput } from '../../core/catalogue.js';
import { creatorGet, type Json } from './client.js';

const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const nstr = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);
const nint = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null);

/** The provider's list, or the spec's 502 for anything else. */
function listOf(ctx: RunContext<any, any>, v: unknown, what: string): Json[] {
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v)) throw invalidStructure(ctx, `${what} is not an array`, 'videosite');
  return v.map(obj);
}

/** A video in a list (spec §2.5); related videos carry `videoUrl` instead of `url`. */
function summary(v: Json): Json {
  const id = str(v.id ?? v.videoId);
  const type = v.type === 'short' ? 'short' : 'video';
  const url = str(v.url ?? v.videoUrl) || (type === 'short' ? `https://www.youtube.com/shorts/${id}` : `https://www.youtube.com/watch?v=${id}`);
  return {
    id,
    title: str(v.title),
    thumbnail: str(v.thumbnail),
    url,
    ...(v.videoUrl ? { videoUrl: str(v.videoUrl) } : {}),
    type,
    publishDateText: nstr(v.publishedTimeText ?? v.publishDateText),
    publishDate: nstr(v.publishedTime ?? v.publishDate),
    viewCountText: nstr(v.viewCountText),
    viewCountInt: nint(v.viewCountInt),
    lengthText: nstr(v.lengthText),
    channel: obj(v.channel),
  };
}

/** The `@handle` of a channel URL such as `http://www.youtube.com/@Name`, else the URL itself. */
function handleOf(channelUrl: string): string {
  const m = /\/(@[^/?#]+)/.exec(channelUrl);
  return m ? decodeURIComponent(m[1]!) : channelUrl;
}

/** Query parameters naming the channel a request means (spec §4.1: channelId, handle or url). */
function channelQuery(i: { channelId?: string; handle?: string; url?: string }): { query: Json; shown: string } {
  const ref = channelRefOf(i);
  if (ref.error !== undefined) throw new InputError(ref.error);
  if ('id' in ref) return { query: { channelId: ref.id }, shown: ref.id };
  if ('handle' in ref) return { query: { handle: ref.handle.replace(/^@/, '') }, shown: ref.handle };
  if ('path' in ref) return { query: { url: `https://www.youtube.com${ref.path}` }, shown: ref.path };
  throw new InputError('At least one parameter is required: \'channelId\', \'handle\', or \'url\'');
}

const channel = defineEndpoint({
  operation: 'videosite_channel',
  title: 'creator_a video-site channel',
  summary: 'Channel details (spec §2.4) from the provider.',
  visibility: 'legacy',
  input: videositeChannel.input,
  output: videositeChannel.output!,
  cost: flat(10),
  validate: videositeChannel.validate,
  async run(input, ctx) {
    const { query, shown } = channelQuery(input);
    const b = await creatorGet(ctx, { path: '/v1/youtube/channel', query, site: 'videosite', notFound: `Channel not found: ${shown}` });
    if (!str(b.channelId) || !str(b.name)) throw invalidStructure(ctx, 'channel without channelId or name', 'videosite');
    const links = Array.isArray(b.links) ? b.links.filter((l: unknown): l is string => typeof l === 'string') : [];
    return {
      channelId: str(b.channelId),
      channel: handleOf(str(b.channel)),
      name: str(b.name),
      description: str(b.description),
      subscriberCount: nint(b.subscriberCount),
      subscriberCountText: nstr(b.subscriberCountText),
      videoCountText: nstr(b.videoCountText),
      viewCountText: nstr(b.viewCountText),
      joinedDateText: nstr(b.joinedDateText),
      tags: Array.isArray(b.tags) ? b.tags.join(', ') : nstr(b.tags),
      country: nstr(b.country),
      email: nstr(b.email),
      store: nstr(b.store),
      twitter: nstr(b.twitter),
      instagram: nstr(b.instagram),
      links,
      avatar: obj(b.avatar),
    };
  },
});

const channelVideos = defineEndpoint({
  operation: 'videosite_channel_videos',
  title: 'creator_a video-site channel videos',
  summary: "A channel's videos (spec §2.5 summaries), latest or popular first, paged with continuationToken.",
  visibility: 'legacy',
  input: videositeChannelVideos.input,
  output: videositeChannelVideos.output!,
  cost: flat(10),
  validate: videositeChannelVideos.validate,
  async run(input, ctx) {
    const { query, shown } = channelQuery(input);
    const b = await creatorGet(ctx, {
      path: '/v1/youtube/channel-videos',
      query: { ...query, sort: input.sort === 'popular' ? 'popular' : 'latest', continuationToken: input.continuationToken, includeExtras: input.includeExtras },
      site: 'videosite',
      notFound: `Channel not found: ${shown}`,
    });
    return { videos: listOf(ctx, b.videos, 'videos').map(summary) as any, continuationToken: nstr(b.continuationToken), success: true };
  },
});

/** Transcript segments of a video, or null when it has none (provider `transcript: null`). */
async function segmentsOf(ctx: RunContext<any, any>, url: string, id: string, language?: string): Promise<{ segments: Json[]; language: string | null } | null> {
  const b = await creatorGet(ctx, { path: '/v1/youtube/video/transcript', query: { url, language }, site: 'videosite', notFound: noSubtitles(id) });
  if (b.transcript === null || b.transcript === undefined) return null;
  const segments = listOf(ctx, b.transcript, 'transcript');
  if (segments.length === 0) return null;
  if (segments.some((s) => typeof s.text !== 'string')) throw invalidStructure(ctx, 'transcript segment without text', 'videosite');
  return { segments, language: nstr(b.language) };
}

const video = defineEndpoint({
  operation: 'videosite_video',
  title: 'creator_a video-site video',
  summary: 'Video details (spec §2.6); get_transcript adds the transcript from the provider’s transcript route.',
  visibility: 'legacy',
  input: videositeVideo.input,
  output: videositeVideo.output!,
  cost: flat(10),
  messages: videositeVideo.messages,
  validate: videositeVideo.validate,
  async run(input, ctx): Promise<any> {
    const id = videoIdOf(input.url).id ?? input.url;
    const notFound = `Video not found or unavailable: ${id}.`;
    const b = await creatorGet(ctx, { path: '/v1/youtube/video', query: { url: input.url }, site: 'videosite', notFound });
    if (!str(b.id) || typeof b.title !== 'string') throw invalidStructure(ctx, 'video without id or title', 'videosite');
    const ch = obj(b.channel);
    const out: Json = {
      id: str(b.id),
      thumbnail: str(b.thumbnail),
      ...(b.url ? { url: str(b.url) } : {}),
      type: b.type === 'short' ? 'short' : 'video',
      title: str(b.title),
      description: str(b.description),
      commentCountText: nstr(b.commentCountText),
      commentCountInt: nint(b.commentCountInt),
      likeCountText: nstr(b.likeCountText),
      likeCountInt: nint(b.likeCountInt),
      viewCountText: nstr(b.viewCountText),
      viewCountInt: nint(b.viewCountInt),
      publishDateText: nstr(b.publishDateText),
      publishDate: nstr(b.publishDate),
      durationMs: nint(b.durationMs),
      durationFormatted: nstr(b.durationFormatted),
      channel: { ...ch, id: str(ch.id), url: str(ch.url), handle: nstr(ch.handle), title: str(ch.title) },
      watchNextVideos: listOf(ctx, b.watchNextVideos, 'watchNextVideos').map(summary),
      keywords: Array.isArray(b.keywords) ? b.keywords.filter((k: unknown) => typeof k === 'string') : [],
      genre: nstr(b.genre),
    };
    if (input.get_transcript) {
      const t = await segmentsOf(ctx, input.url, out.id);
      if (t) {
        out.transcript = t.segments.map((s) => ({ text: s.text, startMs: str(s.startMs), endMs: str(s.endMs), startTimeText: str(s.startTimeText) }));
        out.transcript_only_text = t.segments.map((s) => s.text).join(' ');
      } else out.transcript_only_text = null;
    }
    return out;
  },
});

const comments = defineEndpoint({
  operation: 'videosite_video_comments',
  title: 'creator_a video-site comments',
  summary: 'Comments of a video (spec §2.8), top or newest first, paged with continuationToken; comments disabled → an empty list.',
  visibility: 'legacy',
  input: videositeVideoComments.input,
  output: videositeVideoComments.output!,
  cost: flat(10),
  messages: videositeVideoComments.messages,
  validate: videositeVideoComments.validate,
  async run(input, ctx): Promise<any> {
    const id = videoIdOf(input.url).id ?? input.url;
    const b = await creatorGet(ctx, {
      path: '/v1/youtube/video/comments',
      query: { url: input.url, continuationToken: input.continuationToken, order: input.order ?? 'top' },
      site: 'videosite',
      notFound: `Video not found or unavailable: ${id}.`,
    });
    const list = listOf(ctx, b.comments, 'comments').map((c) => {
      const a = obj(c.author);
      const e = obj(c.engagement);
      if (!str(c.id)) throw invalidStructure(ctx, 'comment without id', 'videosite');
      return {
        id: str(c.id),
        content: str(c.content),
        publishedTimeText: nstr(c.publishedTimeText),
        publishedTime: nstr(c.publishedTime),
        replyLevel: Math.max(0, nint(c.replyLevel) ?? 0),
        author: { name: str(a.name), channelId: str(a.channelId), isVerified: a.isVerified === true, isCreator: a.isCreator === true, avatarUrl: str(a.avatarUrl), channelUrl: str(a.channelUrl) },
        engagement: { likes: nint(e.likes), replies: nint(e.replies) },
      };
    });
    return { comments: list, continuationToken: nstr(b.continuationToken) };
  },
});

const transcript = defineEndpoint({
  operation: 'videosite_transcript',
  title: 'creator_a video-site transcript',
  summary: 'Transcript of a video-site video (spec §4.1 shape: timestamped lines merged in fives by default), from the provider’s transcript route; 20 credits.',
  tags: ['videosite', 'transcript'],
  input: getVideositeTranscript.input,
  output: TranscriptOutput,
  cost: flat(20),
  messages: getVideositeTranscript.messages,
  validate: getVideositeTranscript.validate,
  examples: [{ title: 'Transcript with timestamps', input: { videoUrl: 'https://www.youtube.com/watch?v=GJLlxj_dtq8', preferredLanguage: 'en' } }],
  async run(input, ctx) {
    const id = videoIdOf(input.videoUrl).id ?? input.videoUrl;
    // The provider takes a 2-letter code; without a track in it, it answers the first available.
    const t = await segmentsOf(ctx, input.videoUrl, id, input.preferredLanguage?.slice(0, 2).toLowerCase());
    if (!t) throw new NotFoundError(noSubtitles(id));
    const timed = t.segments.map((s) => {
      const start = Number(s.startMs) || 0;
      return { text: String(s.text), startMs: start, durationMs: Math.max(0, (Number(s.endMs) || start) - start) };
    });
    return { transcript: formatTranscript(timed, input), language: t.language ?? input.preferredLanguage ?? 'en' };
  },
});

/** The video-site endpoints of creator_a by role. */
export const videosite = { channel, channelVideos, video, comments, transcript };
