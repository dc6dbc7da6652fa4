/**
 * creator_a's short-video endpoints (spec §4.2, §2.9; issue 13): comments, following, followers,
 * transcript, profile, profile videos and one video. Each serves the capability of the same name
 * with the capability's own input and output (so the v1 rows run them unmapped) and costs 10
 * credits per successful request; "not found" answers are 404s and, like every failure, free.
 */
import { NotFoundError, defineEndpoint, flat, invalidStructure, type RunContext } from '../../core/sdk.js';
import { clipsiteHandle, clipsiteProfileVideos, clipsiteTranscript, clipsiteUserFollowers, clipsiteUserFollowing, clipsiteVideo, clipsiteVideoComments } from '../../core/catalogue.js';
import { creatorGet, type Json } from './client.js';
import { BadShape, comment, cursorText, followEntry, hasCues, int, intOrNull, isWebVtt, video, videoSummary } from './clipsite-map.js';
import { ProfileInput, ProfileOutput } from './schemas.js';

/** Most provider pages one request may read to gather `count` entries (each page is a provider credit). */
const MAX_PAGES = 10;

/** Runs a mapper; an answer missing what spec §2.9 requires is the spec's 502. */
function shaped<T>(ctx: RunContext<any, any>, map: () => T): T {
  try {
    return map();
  } catch (err) {
    if (err instanceof BadShape) throw invalidStructure(ctx, err.message, 'clipsite');
    throw err;
  }
}

const list = (ctx: RunContext<any, any>, v: unknown, what: string): unknown[] => {
  if (!Array.isArray(v)) throw invalidStructure(ctx, `${what} is not an array`, 'clipsite');
  return v;
};

const comments = defineEndpoint({
  operation: 'clipsite_video_comments',
  title: 'creator_a short-video comments',
  summary: 'Comments of a short video with nested replies; `count` gathers several provider pages or trims one (the cursor is an offset).',
  visibility: 'legacy',
  input: clipsiteVideoComments.input,
  output: clipsiteVideoComments.output!,
  cost: flat(10),
  messages: clipsiteVideoComments.messages,
  validate: clipsiteVideoComments.validate,
  async run(input, ctx): Promise<any> {
    const notFound = `Comments not found for video URL: ${input.url}`;
    const start = input.cursor ?? 0;
    const gathered: Json[] = [];
    let cursor = start;
    let hasMore = false;
    let total = 0;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const body = await creatorGet(ctx, { path: '/v1/tiktok/video/comments', query: { url: input.url, cursor: cursor || undefined }, site: 'clipsite', notFound });
      // The site answers `comments: null` for a video without comments.
      const items = body.comments === null || body.comments === undefined ? [] : list(ctx, body.comments, 'comments');
      gathered.push(...shaped(ctx, () => items.map(comment)));
      hasMore = body.has_more === true || int(body.has_more) === 1;
      total = Math.max(total, int(body.total));
      const next = intOrNull(body.cursor);
      if (next === null || next <= cursor) hasMore = false;
      else cursor = next;
      if (input.count === undefined || gathered.length >= input.count || !hasMore) break;
    }
    if (gathered.length === 0) throw new NotFoundError(notFound);
    if (input.count !== undefined && gathered.length > input.count) {
      // The site's comment cursor is an offset, so a trimmed page resumes exactly after what was returned.
      return { comments: gathered.slice(0, input.count), cursor: start + input.count, hasMore: true, total };
    }
    return { comments: gathered, cursor, hasMore, total };
  },
});

/** A following or followers page reader: whole provider pages (their time cursors cannot be cut). */
function followEndpoint(kind: 'following' | 'followers') {
  const cap = kind === 'following' ? clipsiteUserFollowing : clipsiteUserFollowers;
  const field = kind === 'following' ? 'followingList' : 'followers';
  const label = kind === 'following' ? 'Following list' : 'Followers list';
  return defineEndpoint({
    operation: `clipsite_user_${kind}`,
    title: `creator_a short-video ${kind}`,
    summary: `A user's ${kind === 'following' ? 'following list' : 'followers'}, paged by minTime; \`count\` gathers whole provider pages until it is reached.`,
    visibility: 'legacy',
    input: cap.input,
    output: cap.output!,
    cost: flat(10),
    messages: cap.messages,
    validate: cap.validate,
    async run(input, ctx): Promise<any> {
      const handle = clipsiteHandle(input.handle);
      const notFound = `${label} not found for user: ${handle}`;
      const gathered: Json[] = [];
      let minTime = input.minTime;
      let maxCursor: number | undefined;
      let hasMore = false;
      let total = 0;
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const body = await creatorGet(ctx, { path: `/v1/tiktok/user/${kind}`, query: { handle, min_time: minTime }, site: 'clipsite', notFound });
        const raw = kind === 'following' ? (body.followings ?? body.followingList) : (body.followers ?? body.followerList);
        const items = raw === null || raw === undefined ? [] : list(ctx, raw, kind);
        gathered.push(...shaped(ctx, () => items.map(followEntry)));
        maxCursor ??= intOrNull(body.max_time) ?? undefined;
        hasMore = body.has_more === true || int(body.has_more) === 1;
        total = Math.max(total, int(body.total));
        const next = intOrNull(body.min_time);
        if (next === null || next === minTime) hasMore = false;
        else minTime = next;
        if (input.count === undefined || gathered.length >= input.count || !hasMore) break;
      }
      if (gathered.length === 0) throw new NotFoundError(notFound);
      return { [field]: gathered, maxCursor: maxCursor ?? 0, minCursor: minTime ?? 0, hasMore, total };
    },
  });
}

const transcript = defineEndpoint({
  operation: 'clipsite_transcript',
  title: 'creator_a short-video transcript',
  summary: 'The WebVTT transcript of a short video exactly as the provider returns it (checked to be WebVTT).',
  visibility: 'legacy',
  input: clipsiteTranscript.input,
  output: clipsiteTranscript.output!,
  cost: flat(10),
  messages: clipsiteTranscript.messages,
  validate: clipsiteTranscript.validate,
  async run(input, ctx) {
    const language = input.preferredLanguage ?? 'en';
    const notFound = `No subtitles found for the clipsite video: ${input.videoUrl}`;
    // The provider takes a 2-letter code; a region form (zh-TW) asks for its language.
    const body = await creatorGet(ctx, { path: '/v1/tiktok/video/transcript', query: { url: input.videoUrl, language: language.slice(0, 2).toLowerCase() }, site: 'clipsite', notFound });
    const text = body.transcript;
    if (text === null || text === undefined || text === '') throw new NotFoundError(notFound);
    if (typeof text !== 'string' || !isWebVtt(text)) throw invalidStructure(ctx, 'transcript is not WebVTT', 'clipsite');
    if (!hasCues(text)) throw new NotFoundError(notFound);
    return { transcript: text, language, ...(body.id !== undefined ? { id: String(body.id) } : {}), originalUrl: typeof body.url === 'string' && body.url ? body.url : input.videoUrl };
  },
});

const profile = defineEndpoint({
  operation: 'clipsite_profile',
  title: 'creator_a short-video profile',
  summary: 'A short-video profile: the account, its counters and recent items (spec §2.9); 10 credits, like the other profile reads.',
  tags: ['clipsite', 'profile'],
  input: ProfileInput,
  output: ProfileOutput,
  cost: flat(10),
  messages: { handle: "'handle' parameter is required and must be a non-empty string." },
  validate: (i) => (clipsiteHandle(i.handle) ? undefined : "'handle' parameter is required and must be a non-empty string."),
  examples: [{ title: 'A profile', input: { handle: 'creator' } }],
  async run(input, ctx) {
    const handle = clipsiteHandle(input.handle);
    const body = await creatorGet(ctx, { path: '/v1/tiktok/profile', query: { handle }, site: 'clipsite', notFound: `Profile not found for user: ${handle}` });
    const u = body.user;
    if (!u || typeof u !== 'object' || (!u.id && !u.uniqueId)) throw new NotFoundError(`Profile not found for user: ${handle}`);
    const s = body.stats && typeof body.stats === 'object' ? body.stats : {};
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    return {
      user: {
        ...u,
        id: String(u.id ?? ''),
        uniqueId: text(u.uniqueId),
        nickname: text(u.nickname),
        avatarThumb: text(u.avatarThumb),
        avatarMedium: text(u.avatarMedium),
        avatarLarger: text(u.avatarLarger),
        signature: text(u.signature),
        verified: u.verified === true,
        secUid: text(u.secUid),
        privateAccount: u.privateAccount === true,
        createTime: intOrNull(u.createTime),
        bioLink: typeof u.bioLink?.link === 'string' ? u.bioLink.link : null,
      },
      stats: { ...s, followerCount: int(s.followerCount), followingCount: int(s.followingCount), heartCount: int(s.heartCount ?? s.heart), videoCount: int(s.videoCount), diggCount: int(s.diggCount), friendCount: int(s.friendCount) },
      itemList: Array.isArray(body.itemList) ? body.itemList.filter((i: unknown) => i && typeof i === 'object') : [],
    };
  },
});

const profileVideos = defineEndpoint({
  operation: 'clipsite_profile_videos',
  title: 'creator_a short-video profile videos',
  summary: "A user's videos (spec §2.9 profile videos), latest or popular first, paged by max_cursor.",
  visibility: 'legacy',
  input: clipsiteProfileVideos.input,
  output: clipsiteProfileVideos.output!,
  cost: flat(10),
  messages: clipsiteProfileVideos.messages,
  validate: clipsiteProfileVideos.validate,
  async run(input, ctx) {
    const handle = clipsiteHandle(input.handle);
    const body = await creatorGet(ctx, {
      path: '/v3/tiktok/profile/videos',
      query: { handle, sort_by: input.sortBy, max_cursor: input.maxCursor },
      site: 'clipsite',
      notFound: `Videos not found for user: ${handle}`,
    });
    const items = body.aweme_list === null || body.aweme_list === undefined ? [] : list(ctx, body.aweme_list, 'aweme_list');
    const more = body.has_more === undefined || body.has_more === null ? null : body.has_more === true || int(body.has_more) === 1;
    return {
      aweme_list: shaped(ctx, () => items.map(videoSummary)) as any,
      max_cursor: cursorText(body.max_cursor),
      min_cursor: cursorText(body.min_cursor),
      has_more: more === null ? null : more ? 1 : 0,
      hasMore: more,
      extra: body.extra && typeof body.extra === 'object' && !Array.isArray(body.extra) ? body.extra : {},
    };
  },
});

const oneVideo = defineEndpoint({
  operation: 'clipsite_video',
  title: 'creator_a short-video details',
  summary: 'One short video (spec §2.9 video response) from the provider’s video detail.',
  visibility: 'legacy',
  input: clipsiteVideo.input,
  output: clipsiteVideo.output!,
  cost: flat(10),
  messages: clipsiteVideo.messages,
  validate: clipsiteVideo.validate,
  async run(input, ctx) {
    const notFound = `Video not found: ${input.url}`;
    const body = await creatorGet(ctx, { path: '/v2/tiktok/video', query: { url: input.url }, site: 'clipsite', notFound });
    if (!body.aweme_detail || typeof body.aweme_detail !== 'object') throw new NotFoundError(notFound);
    return shaped(ctx, () => video(body.aweme_detail, input.url)) as any;
  },
});

const following = followEndpoint('following');
const followers = followEndpoint('followers');

/** The short-video endpoints of creator_a by role, for `endpoints` and `implements`. */
export const clipsite = { comments, following, followers, transcript, profile, profileVideos, video: oneVideo };
