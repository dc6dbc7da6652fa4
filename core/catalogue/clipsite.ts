/**
 * Short-video-site jobs kept on the direct lane (spec §4.2, §9.1): comments, following and
 * followers lists, transcript, profile videos and one video. Their output schemas model spec §2.9
 * field by field so v2 details and OpenAPI show them and the executor checks every provider's
 * answer. Each costs 10 credits per successful request (spec §8.1); failures and "not found"
 * answers cost nothing (the executor never charges a failure).
 */
import { Type, defineCapability, flat, type Static } from '../sdk.js';

/** spec §7.1: the 400 text of a URL that is not a short-video URL. */
export const CLIPSITE_URL_INVALID = 'Invalid clipsite video URL format.';
const HANDLE_REQUIRED = "'handle' parameter is required and must be a non-empty string.";
const COUNT = "'count' must be an integer between 1 and 100.";

/**
 * Whether `url` is a short-video URL the provider can resolve: the full form
 * (`/@user/video/<id>`, `/@user/photo/<id>`), the mobile form (`/v/<id>.html`) and the short links
 * (`vm.`/`vt.` hosts, `/t/<code>`) people copy from the app's share sheet (spec §4.2).
 */
export function isClipsiteVideoUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(/^https?:\/\//i.test(url.trim()) ? url.trim() : `https://${url.trim()}`);
  } catch {
    return false;
  }
  const host = u.hostname.toLowerCase();
  if (!/(^|\.)tiktok\.com$/.test(host)) return false;
  if (/^(vm|vt)\.tiktok\.com$/.test(host)) return /^\/[A-Za-z0-9_-]+\/?$/.test(u.pathname);
  return /^\/@[^/]+\/(video|photo)\/\d+\/?$/.test(u.pathname) || /^\/t\/[A-Za-z0-9_-]+\/?$/.test(u.pathname) || /^\/v\/\d+(\.html)?\/?$/.test(u.pathname);
}

/** A handle as users type it: `@name` and surrounding spaces tolerated (issue 13). */
export function clipsiteHandle(handle: string): string {
  return handle.trim().replace(/^@+/, '').trim();
}

const checkUrl = (url: string) => (isClipsiteVideoUrl(url) ? undefined : CLIPSITE_URL_INVALID);
const checkHandle = (handle: string) => (clipsiteHandle(handle) ? undefined : HANDLE_REQUIRED);

const Str = (description: string) => Type.String({ description });
const Int = (description: string) => Type.Integer({ description });
const Free = (description: string) => Type.Object({}, { additionalProperties: true, description });
const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer> | ReturnType<typeof Type.Boolean>>(t: T, description: string) =>
  Type.Union([t, Type.Null()], { description });

const CommentUser = Type.Object(
  {
    uid: Str('Account id.'),
    unique_id: Str('Username (handle without @).'),
    nickname: Str('Display name.'),
    avatar_thumb: Type.Object({ url_list: Type.Array(Str('Image URL.'), { description: 'Avatar URLs, smallest first.' }) }, { additionalProperties: true, description: 'Avatar thumbnail.' }),
    verified: Type.Boolean({ description: 'Whether the account is verified.' }),
  },
  { additionalProperties: true, description: 'Who wrote the comment.' },
);

const replyFields = {
  cid: Str('Comment id.'),
  text: Str('Comment text.'),
  create_time: Int('When it was posted (epoch seconds).'),
  digg_count: Int('Likes.'),
  user: CommentUser,
};

/** One comment of spec §2.9, with its first replies nested. */
export const ClipsiteComment = Type.Object(
  {
    ...replyFields,
    reply_comment_total: Int('Replies in all.'),
    reply_comment: Type.Array(Type.Object(replyFields, { additionalProperties: true, description: 'A reply (same fields minus reply_comment_total).' }), { description: 'Replies shown with the comment.' }),
  },
  { additionalProperties: true, description: 'A comment (spec §2.9).' },
);

/** A user entry of a following or followers list (spec §2.9). */
export const ClipsiteFollowEntry = Type.Object(
  {
    user: Type.Object(
      {
        id: Str('Account id.'),
        uniqueId: Str('Username (handle without @).'),
        nickname: Str('Display name.'),
        avatarThumb: Str('Avatar thumbnail URL (empty when none).'),
        signature: Str('Bio.'),
        verified: Type.Boolean({ description: 'Whether the account is verified.' }),
        secUid: Str('Stable secure id of the account.'),
        privateAccount: Type.Boolean({ description: 'Whether the account is private.' }),
      },
      { description: 'The account.' },
    ),
    stats: Type.Object(
      {
        followerCount: Int('Followers.'),
        followingCount: Int('Accounts it follows.'),
        heartCount: Int('Likes received.'),
        videoCount: Int('Videos posted.'),
        diggCount: Int('Videos it liked.'),
      },
      { description: 'Counters of the account.' },
    ),
  },
  { description: 'A user entry (spec §2.9).' },
);

/** A video summary of a profile's video list (spec §2.9). */
export const ClipsiteVideoSummary = Type.Object(
  {
    aweme_id: Str('Video id.'),
    id: Str('Video id (same as aweme_id).'),
    desc: Nullable(Type.String(), 'Caption.'),
    create_time: Nullable(Type.Integer(), 'When it was posted (epoch seconds).'),
    statistics: Free('Counters: play_count, digg_count, comment_count, share_count, collect_count.'),
    video: Free('Media: duration, cover, play and download addresses.'),
    author: Free('The author: uid, unique_id, nickname, avatar.'),
  },
  { additionalProperties: true, description: 'A video summary (spec §2.9).' },
);

const pagingInput = {
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Entries wanted (1-100); whole pages of the site are returned, so a page may hold more (default one page).' })),
};
const followInput = Type.Object({
  handle: Type.String({ description: 'Username, without @ (a leading @ is ignored).', minLength: 1 }),
  minTime: Type.Optional(Type.Number({ description: "Next page: the previous response's minCursor." })),
  ...pagingInput,
});
type FollowInput = Static<typeof followInput>;
const followPaging = {
  maxCursor: Type.Number({ description: 'Newest follow time of this page.' }),
  minCursor: Type.Number({ description: 'Oldest follow time of this page: pass it as minTime for the next page.' }),
  hasMore: Type.Boolean({ description: 'Whether another page exists.' }),
  total: Type.Number({ description: 'Entries in all (approximate).' }),
};

export const clipsiteVideoComments = defineCapability({
  id: 'clipsite_video_comments',
  title: 'Short-video comments',
  summary: 'Comments of a short video with their first replies, newest first, paged by cursor; 10 credits per successful request.',
  tags: ['clipsite', 'comments', 'short video'],
  visibility: 'legacy',
  input: Type.Object({
    url: Type.String({ description: 'Full short-video URL or a short link (vm./vt./t/).', minLength: 1 }),
    cursor: Type.Optional(Type.Number({ minimum: 0, description: "Next page: the previous response's cursor." })),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Comments per request (1-100; default one page of the site, about 20).' })),
  }),
  output: Type.Object({
    comments: Type.Array(ClipsiteComment, { description: 'Comments.' }),
    cursor: Type.Number({ description: 'Pass it as cursor for the next page.' }),
    hasMore: Type.Boolean({ description: 'Whether more comments exist.' }),
    total: Type.Number({ description: 'Comments in all (approximate).' }),
  }),
  cost: flat(10),
  messages: { url: "'url' parameter is required and must be a non-empty string.", cursor: "'cursor' must be a number of 0 or more (the previous response's cursor).", count: COUNT },
  validate: (i: { url: string }) => checkUrl(i.url),
  examples: [{ title: 'First page of comments', input: { url: 'https://www.tiktok.com/@creator/video/7400000000000000001' } }],
});

export const clipsiteUserFollowing = defineCapability({
  id: 'clipsite_user_following',
  title: 'Short-video following list',
  summary: 'Accounts a user follows, paged by minTime; 10 credits per successful request.',
  tags: ['clipsite', 'following', 'social graph'],
  visibility: 'legacy',
  input: followInput,
  output: Type.Object({ followingList: Type.Array(ClipsiteFollowEntry, { description: 'Accounts followed, most recent first.' }), ...followPaging }),
  cost: flat(10),
  messages: { handle: HANDLE_REQUIRED, minTime: "'minTime' must be a number (the previous response's minCursor).", count: COUNT },
  validate: (i: FollowInput) => checkHandle(i.handle),
  examples: [{ title: 'First page of a following list', input: { handle: 'creator' } }],
});

export const clipsiteUserFollowers = defineCapability({
  id: 'clipsite_user_followers',
  title: 'Short-video followers',
  summary: "A user's followers, paged by minTime; 10 credits per successful request.",
  tags: ['clipsite', 'followers', 'social graph'],
  visibility: 'legacy',
  input: followInput,
  output: Type.Object({ followers: Type.Array(ClipsiteFollowEntry, { description: 'Followers, most recent first.' }), ...followPaging }),
  cost: flat(10),
  messages: { handle: HANDLE_REQUIRED, minTime: "'minTime' must be a number (the previous response's minCursor).", count: COUNT },
  validate: (i: FollowInput) => checkHandle(i.handle),
  examples: [{ title: 'First page of followers', input: { handle: 'creator' } }],
});

/** preferredLanguage: ISO 639-1, or with a region as automation platforms send it (`zh-TW`). */
const LANGUAGE = /^[a-z]{2}(-[A-Za-z0-9]{2,8})?$/i;

export const clipsiteTranscript = defineCapability({
  id: 'clipsite_transcript',
  title: 'Short-video transcript',
  summary: 'The WebVTT transcript of a short video in a preferred language; 10 credits per successful request.',
  tags: ['clipsite', 'transcript', 'subtitles', 'webvtt'],
  visibility: 'legacy',
  input: Type.Object({
    videoUrl: Type.String({ description: 'Full short-video URL or a short link.', minLength: 1 }),
    preferredLanguage: Type.Optional(Type.String({ description: 'ISO 639-1 code (default en); a region form such as zh-TW is accepted.', maxLength: 16 })),
  }),
  output: Type.Object({
    transcript: Str('The transcript in WebVTT format, as the site provides it.'),
    language: Str('The requested language code.'),
    id: Type.Optional(Str('Video id.')),
    originalUrl: Type.Optional(Str('The video URL.')),
  }),
  cost: flat(10),
  messages: { videoUrl: 'videoUrl parameter is required' },
  validate: (i: { videoUrl: string; preferredLanguage?: string }) =>
    i.preferredLanguage !== undefined && !LANGUAGE.test(i.preferredLanguage)
      ? "'preferredLanguage' must be a 2-letter ISO 639-1 code such as en (a region form such as zh-TW is accepted)."
      : checkUrl(i.videoUrl),
  examples: [{ title: 'English transcript', input: { videoUrl: 'https://www.tiktok.com/@creator/video/7400000000000000001', preferredLanguage: 'en' } }],
});

export const clipsiteProfileVideos = defineCapability({
  id: 'clipsite_profile_videos',
  title: 'Short-video profile videos',
  summary: "A user's videos, latest or most popular first, paged by maxCursor; 10 credits per successful request.",
  tags: ['clipsite', 'videos', 'profile'],
  visibility: 'legacy',
  input: Type.Object({
    handle: Type.String({ description: 'Username, without @ (a leading @ is ignored).', minLength: 1 }),
    sortBy: Type.Optional(Type.Union([Type.Literal('latest'), Type.Literal('popular')], { description: 'latest (default) or popular.' })),
    maxCursor: Type.Optional(Type.String({ description: "Next page: the previous response's max_cursor.", maxLength: 64 })),
  }),
  output: Type.Object({
    aweme_list: Type.Array(ClipsiteVideoSummary, { description: 'Videos.' }),
    max_cursor: Nullable(Type.String(), 'Pass it as maxCursor for the next page.'),
    min_cursor: Nullable(Type.String(), 'Cursor of the newest video of the page.'),
    has_more: Nullable(Type.Integer(), '1 when another page exists, else 0.'),
    hasMore: Nullable(Type.Boolean(), 'Whether another page exists.'),
    extra: Free('Paging details of the site (e.g. now, fatal_item_ids).'),
  }),
  cost: flat(10),
  messages: { handle: HANDLE_REQUIRED },
  validate: (i: { handle: string }) => checkHandle(i.handle),
  examples: [{ title: 'Latest videos of a profile', input: { handle: 'creator' } }],
});

export const clipsiteVideo = defineCapability({
  id: 'clipsite_video',
  title: 'Short-video details',
  summary: 'One short video: caption, creation time, media, author, music and counters; 10 credits per successful request.',
  tags: ['clipsite', 'video'],
  visibility: 'legacy',
  input: Type.Object({ url: Type.String({ description: 'Full short-video URL or a short link.', minLength: 1 }) }),
  output: Type.Object(
    {
      id: Str('Video id.'),
      desc: Str('Caption.'),
      createTime: Nullable(Type.Integer(), 'When it was posted (epoch seconds).'),
      createTimeISO: Nullable(Type.String(), 'When it was posted (ISO 8601 date-time).'),
      video: Free('Media: duration, cover, play and download addresses.'),
      author: Free('The author: uid, unique_id, nickname, avatar.'),
      music: Free('The sound used: id, title, author.'),
      statistics: Type.Optional(Free('Counters: play_count, digg_count, comment_count, share_count, collect_count.')),
      url: Type.Optional(Str('The video URL.')),
    },
    { additionalProperties: true, description: 'A video (spec §2.9).' },
  ),
  cost: flat(10),
  messages: { url: "'url' parameter is required and must be a non-empty string." },
  validate: (i: { url: string }) => checkUrl(i.url),
  examples: [{ title: 'One video', input: { url: 'https://www.tiktok.com/@creator/video/7400000000000000001' } }],
});

export default [clipsiteVideoComments, clipsiteUserFollowing, clipsiteUserFollowers, clipsiteTranscript, clipsiteProfileVideos, clipsiteVideo];
