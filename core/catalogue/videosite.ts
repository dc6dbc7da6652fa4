/**
 * Video-site jobs (spec §2.4–2.8, §4.1, issue 12): channel, video, comments, and the three listing
 * operations whose paths the spec leaves out (channel videos, channel shorts, search). They stay on
 * the direct lane (spec §9.1: `visibility: 'legacy'`). The schemas are provider-neutral: any
 * provider (the site itself, a hosted scraper) maps onto them, and the executor checks outputs
 * against them field by field. URL parsing is shared here so every provider rejects the same input.
 */
import { Type, defineCapability, flat, type Static, type TSchema } from '../sdk.js';

/** Hosts of the video site a user's URL may name (desktop, mobile, music, short links, no-cookie embeds). */
const SITE_HOST = /^(?:(?:www|m|music|gaming)\.)?(?:youtube\.com|youtube-nocookie\.com)$|^youtu\.be$/i;
const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;

function siteUrl(raw: string): URL | undefined {
  const s = raw.trim();
  try {
    const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `https://${s.replace(/^\/\//, '')}`);
    return SITE_HOST.test(u.hostname) ? u : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The video id a user's URL names (issue 12: `watch?v=`, `youtu.be/`, `/shorts/`, `/live/`,
 * `/embed/`, `/v/`, mobile and music hosts; a bare 11-character id is accepted too), whether it is
 * a Short, or the 400 text when it names no video.
 */
export function videoIdOf(raw: string): { id: string; short: boolean; error?: undefined } | { error: string; id?: undefined; short?: undefined } {
  const s = String(raw ?? '').trim();
  if (VIDEO_ID.test(s)) return { id: s, short: false };
  const u = siteUrl(s);
  const parts = u ? u.pathname.split('/').filter(Boolean) : [];
  let id: string | null | undefined;
  if (u && /youtu\.be$/i.test(u.hostname)) id = parts[0];
  else if (u && parts[0] === 'watch') id = u.searchParams.get('v');
  else if (u && ['shorts', 'live', 'embed', 'v', 'e'].includes(parts[0] ?? '')) id = parts[1];
  if (id && VIDEO_ID.test(id)) return { id, short: parts[0] === 'shorts' };
  return { error: `Invalid videosite video URL format: '${s.slice(0, 200)}'. Expected a watch, youtu.be, shorts, live or embed URL.` };
}

/** The channel a request names: an id, a handle, or a legacy /c/ or /user/ path to resolve. */
export type ChannelRef = { id: string } | { handle: string } | { path: string };

/** The channel that `channelId`, `handle` or `url` names (that order), or the 400 text. */
export function channelRefOf(i: { channelId?: string; handle?: string; url?: string }): ChannelRef & { error?: undefined } | { error: string } {
  const id = i.channelId?.trim();
  if (id) return /^UC[\w-]{22}$/.test(id) ? { id } : { error: `Invalid channelId '${id.slice(0, 100)}': a channel ID starts with UC and has 24 characters.` };
  const handle = i.handle?.trim().replace(/^@/, '');
  if (handle) return /^[\p{L}\p{N}_.\-·]{3,100}$/u.test(handle) ? { handle: `@${handle}` } : { error: `Invalid handle '${handle.slice(0, 100)}'.` };
  const url = i.url?.trim() ?? '';
  const u = siteUrl(url);
  const parts = u ? u.pathname.split('/').filter(Boolean).map(decodeURIComponent) : [];
  if (parts[0] === 'channel' && /^UC[\w-]{22}$/.test(parts[1] ?? '')) return { id: parts[1]! };
  if (parts[0]?.startsWith('@') && parts[0].length > 1) return { handle: parts[0] };
  if ((parts[0] === 'c' || parts[0] === 'user') && parts[1]) return { path: `/${parts[0]}/${encodeURIComponent(parts[1])}` };
  return { error: `Invalid channel URL format: '${url.slice(0, 200)}'. Expected a /channel/ID, /@handle, /c/name or /user/name URL.` };
}

const S = (description: string) => Type.String({ description });
const Nullable = <T extends TSchema>(t: T, description: string) => Type.Union([t, Type.Null()], { description });
const NStr = (description: string) => Nullable(Type.String(), description);
const NInt = (description: string) => Nullable(Type.Integer(), description);
const Free = (description: string) => Type.Object({}, { additionalProperties: true, description });

/**
 * A live stream's state and audience, beside the spec's fields: the site's counter under a stream
 * ("6 waiting", "1,234 watching") counts people, not views, so it has fields of its own. Optional:
 * providers that cannot tell leave them out.
 */
const LiveFields = {
  liveStatus: Type.Optional(
    Type.Union([Type.Literal('none'), Type.Literal('upcoming'), Type.Literal('live'), Type.Literal('ended')], {
      description: 'none (an ordinary video), upcoming (scheduled stream or premiere), live (streaming now) or ended (a past stream).',
    }),
  ),
  scheduledStartTime: Type.Optional(NStr('When an upcoming stream or premiere starts (ISO 8601); null otherwise.')),
  concurrentViewers: Type.Optional(NInt('People waiting for an upcoming stream or watching a live one, as an integer.')),
  concurrentViewersText: Type.Optional(NStr('That audience as the site shows it (e.g. "6 waiting", "1,234 watching").')),
};

/** Spec §7.1: the 400 text of a missing `url`. */
export const VIDEOSITE_URL_REQUIRED = "'url' parameter is required and must be a non-empty string.";
/** Spec §7.1: the 400 text of a channel request naming no channel. */
export const VIDEOSITE_CHANNEL_REQUIRED = "At least one parameter is required: 'channelId', 'handle', or 'url'";

/** Spec §2.4: a channel. */
export const VideositeChannel = Type.Object(
  {
    channelId: S('Channel ID (UC…).'),
    channel: S('Canonical handle with leading @ (the channel URL when the channel has no handle).'),
    name: S('Channel name.'),
    description: S('Channel description.'),
    subscriberCount: NInt('Subscribers as an integer (from the abbreviated text, e.g. 1.2M → 1200000).'),
    subscriberCountText: NStr('Subscribers as the site shows them.'),
    videoCountText: NStr('Videos as the site shows them.'),
    viewCountText: NStr('Total views as the site shows them.'),
    joinedDateText: NStr('When the channel was created, as the site shows it.'),
    tags: NStr('Channel keywords, comma-separated.'),
    country: NStr('Country the channel states.'),
    email: NStr('Public contact e-mail, when the channel shows one.'),
    store: NStr('Store link (URI), when present.'),
    twitter: NStr('Twitter/X link (URI), when present.'),
    instagram: NStr('Instagram link (URI), when present.'),
    links: Type.Array(S('Link URI.'), { description: 'Links the channel lists.' }),
    avatar: Free('Avatar image data: { image: { sources: [{ url, width, height }] } }.'),
  },
  { additionalProperties: true, description: 'Video-site channel (spec §2.4).' },
);

const ChannelOfItem = Free('Channel of the item: id, title, handle, url, thumbnail when known.');

/** Spec §2.5: a video in a list (channel videos, shorts, search results, related videos). */
export const VideositeVideoSummary = Type.Object(
  {
    id: S('Video ID.'),
    title: S('Title.'),
    thumbnail: S('Thumbnail URI.'),
    url: S('Watch URL (a /shorts/ URL for shorts).'),
    videoUrl: Type.Optional(S('Watch URL (related-video form of `url`).')),
    type: Type.Union([Type.Literal('video'), Type.Literal('short')], { description: 'video or short.' }),
    publishDateText: NStr('When it was published, as the site shows it (e.g. "3 days ago").'),
    publishDate: NStr('Publish date-time (ISO 8601), when the site states or implies it.'),
    viewCountText: NStr('Views as the site shows them.'),
    viewCountInt: NInt('Views as an integer (null for a live or upcoming stream, which shows an audience instead).'),
    lengthText: NStr('Duration as the site shows it (e.g. 12:34).'),
    channel: ChannelOfItem,
    ...LiveFields,
  },
  { additionalProperties: true, description: 'Video summary (spec §2.5).' },
);

/** Spec §2.7: one transcript segment. */
export const VideositeTranscriptSegment = Type.Object(
  {
    text: S('Text of the segment.'),
    startMs: S('Start, milliseconds (a string, as in the spec).'),
    endMs: S('End, milliseconds (a string).'),
    startTimeText: S('Start as minutes:seconds (h:mm:ss past an hour).'),
  },
  { additionalProperties: true, description: 'Transcript segment (spec §2.7).' },
);

/** Spec §2.6: a video in detail. */
export const VideositeVideo = Type.Object(
  {
    id: S('Video ID.'),
    thumbnail: S('Largest thumbnail URI.'),
    url: Type.Optional(S('Canonical watch URL.')),
    type: Type.Union([Type.Literal('video'), Type.Literal('short')], { description: 'video or short.' }),
    title: S('Title.'),
    description: S('Full description.'),
    commentCountText: NStr('Comments as the site shows them.'),
    commentCountInt: NInt('Comments as an integer.'),
    likeCountText: NStr('Likes as the site shows them.'),
    likeCountInt: NInt('Likes as an integer.'),
    viewCountText: NStr('Views as the site shows them.'),
    viewCountInt: NInt('Views as an integer.'),
    publishDateText: NStr('Publish date as the site shows it.'),
    publishDate: NStr('Publish date-time (ISO 8601).'),
    durationMs: NInt('Duration in milliseconds (0 for a live stream still running).'),
    durationFormatted: NStr('Duration as h:mm:ss or m:ss.'),
    channel: Type.Object(
      { id: S('Channel ID.'), url: S('Channel URL.'), handle: NStr('Handle with @, when known.'), title: S('Channel name.') },
      { additionalProperties: true, description: 'Channel that published the video.' },
    ),
    watchNextVideos: Type.Array(VideositeVideoSummary, { description: 'Related videos (spec §2.5).' }),
    keywords: Type.Array(S('Keyword.'), { description: 'Keywords (tags) of the video.' }),
    genre: Type.Optional(NStr('Category of the video.')),
    transcript: Type.Optional(Type.Array(VideositeTranscriptSegment, { description: 'Transcript segments; present when requested and captions exist.' })),
    transcript_only_text: Type.Optional(NStr('The whole transcript as one string; present when requested (null without captions).')),
    ...LiveFields,
  },
  { additionalProperties: true, description: 'Video detail (spec §2.6).' },
);

/** Spec §2.8: one comment. */
export const VideositeComment = Type.Object(
  {
    id: S('Comment ID.'),
    content: S('Text of the comment.'),
    publishedTimeText: NStr('When it was posted, as the site shows it (e.g. "2 years ago").'),
    publishedTime: NStr('Approximate posting date-time (ISO 8601), from the relative text.'),
    replyLevel: Type.Integer({ minimum: 0, description: '0 for a top-level comment, 1 for a reply.' }),
    author: Type.Object(
      {
        name: S('Display name (the @handle on current pages).'),
        channelId: S('Channel ID of the author.'),
        isVerified: Type.Boolean({ description: 'Verified badge.' }),
        isCreator: Type.Boolean({ description: 'The video owner wrote it.' }),
        avatarUrl: S('Avatar URI.'),
        channelUrl: S('Channel URI of the author.'),
      },
      { description: 'Author of the comment.' },
    ),
    engagement: Type.Object(
      { likes: NInt('Likes.'), replies: NInt('Replies (top-level comments).') },
      { additionalProperties: false, description: 'Engagement counts.' },
    ),
  },
  { additionalProperties: true, description: 'Video comment (spec §2.8).' },
);

const Token = Type.Optional(Type.String({ description: 'continuationToken of the previous response, for the next page.', minLength: 1 }));
const NextToken = NStr('Pass as continuationToken for the next page; null on the last page.');
const ChannelSelect = {
  channelId: Type.Optional(Type.String({ description: 'Channel ID (UC…).' })),
  handle: Type.Optional(Type.String({ description: 'Handle, with or without the leading @.' })),
  url: Type.Optional(Type.String({ description: 'Channel URL (/channel/ID, /@handle, /c/name or /user/name).' })),
};
const ListSort = Type.Union([Type.Literal('latest'), Type.Literal('popular'), Type.Literal('newest')], { description: 'latest (default; newest is the same), popular.' });
const Extras = Type.Optional(Type.String({ description: '"true" adds each video\'s description where the listing carries it.' }));

const ChannelInput = Type.Object({ ...ChannelSelect });
const VideoInput = Type.Object({
  url: Type.String({ description: 'Video URL: watch?v=, youtu.be/, /shorts/, /live/, /embed/ or the mobile site.', minLength: 1 }),
  get_transcript: Type.Optional(Type.Boolean({ description: 'Add transcript and transcript_only_text (default false).' })),
});
const CommentsInput = Type.Object({
  url: Type.String({ description: 'Video URL.', minLength: 1 }),
  continuationToken: Token,
  order: Type.Optional(Type.Union([Type.Literal('top'), Type.Literal('newest')], { description: 'top (most liked first, default) or newest.' })),
});
const ChannelListInput = Type.Object({ ...ChannelSelect, continuationToken: Token, sort: Type.Optional(ListSort), includeExtras: Extras });
const ShortsInput = Type.Object({ ...ChannelSelect, continuationToken: Token, sort: Type.Optional(ListSort) });
const SearchInput = Type.Object({
  query: Type.String({ description: 'What to search for.', minLength: 1 }),
  uploadDate: Type.Optional(Type.Union(['today', 'this_week', 'this_month', 'this_year'].map((v) => Type.Literal(v)), { description: 'Only videos uploaded in this period.' })),
  sortBy: Type.Optional(Type.Union([Type.Literal('relevance'), Type.Literal('popular')], { description: 'relevance (default) or popular.' })),
  filter: Type.Optional(Type.Union(['videos', 'shorts', 'channels', 'playlists'].map((v) => Type.Literal(v)), { description: 'Only this kind of result.' })),
  continuationToken: Token,
  includeExtras: Extras,
});

/** Inputs of the video-site capabilities, for providers' typed mappings. */
export type VideositeChannelInput = Static<typeof ChannelInput>;
export type VideositeVideoInput = Static<typeof VideoInput>;
export type VideositeCommentsInput = Static<typeof CommentsInput>;
export type VideositeChannelListInput = Static<typeof ChannelListInput>;
export type VideositeShortsInput = Static<typeof ShortsInput>;
export type VideositeSearchInput = Static<typeof SearchInput>;

/** Outputs, likewise. */
export const VideositeCommentsOutput = Type.Object({ comments: Type.Array(VideositeComment, { description: 'Comments; a reply follows its thread with replyLevel 1. Empty when comments are disabled.' }), continuationToken: NextToken });
export const VideositeChannelVideosOutput = Type.Object({ videos: Type.Array(VideositeVideoSummary, { description: 'Videos of the channel.' }), continuationToken: NextToken, success: Type.Optional(Type.Boolean({ description: 'Always true on success.' })) });
export const VideositeChannelShortsOutput = Type.Object({ shorts: Type.Array(VideositeVideoSummary, { description: 'Shorts of the channel.' }), continuationToken: NextToken });
const Listed = (d: string) => Type.Array(Free(d), { description: `${d}s found.` });
export const VideositeSearchOutput = Type.Object({
  videos: Type.Array(VideositeVideoSummary, { description: 'Videos found.' }),
  channels: Listed('Channel: id, title, handle, url, thumbnail, subscriberCountText, description'),
  playlists: Listed('Playlist: id, title, url, thumbnail, videoCount, channel'),
  shorts: Type.Array(VideositeVideoSummary, { description: 'Shorts found.' }),
  continuationToken: NextToken,
});

const needsChannel = (i: { channelId?: string; handle?: string; url?: string }) => (i.channelId?.trim() || i.handle?.trim() || i.url?.trim() ? channelRefOf(i).error : VIDEOSITE_CHANNEL_REQUIRED);
const needsVideo = (i: { url: string }) => videoIdOf(i.url).error;
const common = { visibility: 'legacy' as const, cost: flat(10) };

export const videositeChannel = defineCapability({ id: 'videosite_channel', title: 'Video-site channel', summary: 'Channel details by id, handle or URL: name, handle, description, subscriber/video/view counts, joined date, country, links, avatar.', tags: ['videosite', 'channel'], input: ChannelInput, output: VideositeChannel, validate: needsChannel, ...common });
export const videositeVideo = defineCapability({ id: 'videosite_video', title: 'Video-site video', summary: 'Video details (counts, dates, duration, channel, keywords, related videos), optionally with its transcript.', tags: ['videosite', 'video'], input: VideoInput, output: VideositeVideo, validate: needsVideo, messages: { url: VIDEOSITE_URL_REQUIRED, get_transcript: "'get_transcript' must be a boolean." }, ...common });
export const videositeVideoComments = defineCapability({ id: 'videosite_video_comments', title: 'Video-site comments', summary: 'Comments of a video with their replies, top or newest first, paged with continuationToken.', tags: ['videosite', 'comments'], input: CommentsInput, output: VideositeCommentsOutput, validate: needsVideo, messages: { url: VIDEOSITE_URL_REQUIRED }, ...common });
export const videositeChannelVideos = defineCapability({ id: 'videosite_channel_videos', title: 'Video-site channel videos', summary: "A channel's videos, latest or popular first, paged with continuationToken.", tags: ['videosite', 'channel', 'videos'], input: ChannelListInput, output: VideositeChannelVideosOutput, validate: needsChannel, ...common });
export const videositeChannelShorts = defineCapability({ id: 'videosite_channel_shorts', title: 'Video-site channel shorts', summary: "A channel's Shorts, paged with continuationToken.", tags: ['videosite', 'channel', 'shorts'], input: ShortsInput, output: VideositeChannelShortsOutput, validate: needsChannel, ...common });
export const videositeSearch = defineCapability({ id: 'videosite_search', title: 'Video-site search', summary: 'Search the video site: videos, channels, playlists and shorts, with upload-date, sort and type filters.', tags: ['videosite', 'search'], input: SearchInput, output: VideositeSearchOutput, messages: { query: "'query' parameter is required and must be a non-empty string." }, ...common });

export default [videositeChannel, videositeVideo, videositeVideoComments, videositeChannelVideos, videositeChannelShorts, videositeSearch];
