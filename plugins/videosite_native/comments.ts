/**
 * Comments (spec §2.8) from the `next` endpoint, parsed here rather than by youtubei.js: its reply
 * fetching fails on current-format threads ("Replies continuation item not found", issue 12's
 * known trap), and its continuations are objects held in memory, while callers page with a token.
 *
 * Current pages carry each comment as a `commentViewModel` whose data sits in
 * `frameworkUpdates.entityBatchUpdate.mutations[].payload.commentEntityPayload` under the same key;
 * older pages carry a `commentRenderer`. Both are read. A top-level comment with replies carries
 * `repliesContinuationToken`: passing it as `continuationToken` returns that thread's replies
 * (replyLevel 1), paged the same way, so replies cost a request only when someone wants them.
 */
import { InputError, NotFoundError, invalidStructure, type RunContext, type Static } from '../../core/sdk.js';
import type { VideositeComment } from '../../core/catalogue.js';
import { SERVICE, innertube, type NativeState } from './session.js';
import { countOf, findAll, findFirst, relativeToIso, siteUrl, textOf, type Json } from './text.js';

type Comment = Static<typeof VideositeComment> & { repliesContinuationToken?: string };

/** Protobuf varint. */
function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}
const field = (tag: number, bytes: number[]) => [...varint(tag), ...varint(bytes.length), ...bytes];
const str = (s: string) => [...Buffer.from(s, 'utf8')];

/**
 * The token of a video's comment section, as the site's own page builds it (the layout of
 * youtubei.js's `GetCommentsSectionParams`): so the first page is one request, not two.
 * `sort` 0 = top comments, 1 = newest first.
 */
export function commentsToken(videoId: string, sort: 0 | 1): string {
  const options = [...field(34, str(videoId)), ...(sort ? [48, sort] : []), 120, 2, ...field(130, [])];
  const params = [...field(34, options), ...field(66, str('comments-section'))];
  const bytes = [...field(18, field(18, str(videoId))), 24, 6, ...field(50, params)];
  return encodeURIComponent(Buffer.from(bytes).toString('base64'));
}

/** Entity payloads of the page by key. */
function entities(page: Json): Map<string, Json> {
  const map = new Map<string, Json>();
  for (const m of page?.frameworkUpdates?.entityBatchUpdate?.mutations ?? []) {
    const payload = m?.payload?.commentEntityPayload;
    if (payload && typeof m.entityKey === 'string') map.set(m.entityKey, payload);
  }
  return map;
}

/** A `commentViewModel` and its entity. */
function fromViewModel(vm: Json, ents: Map<string, Json>): Comment | null {
  const e = ents.get(vm?.commentKey);
  if (!e) return null;
  const p = e.properties ?? {};
  const a = e.author ?? {};
  const t = e.toolbar ?? {};
  const level = Number(p.replyLevel ?? 0) || 0;
  const base = findFirst(a.channelCommand, 'browseEndpoint')?.canonicalBaseUrl;
  const likesText = t.likeCountA11y ?? t.likeCountNotliked;
  return {
    id: String(p.commentId ?? vm.commentId ?? ''),
    content: textOf(p.content) ?? '',
    publishedTimeText: p.publishedTime ?? null,
    publishedTime: relativeToIso(p.publishedTime),
    replyLevel: level,
    author: {
      name: String(a.displayName ?? ''),
      channelId: String(a.channelId ?? ''),
      isVerified: a.isVerified === true,
      isCreator: a.isCreator === true,
      avatarUrl: String(a.avatarThumbnailUrl ?? ''),
      channelUrl: siteUrl(base ?? `/channel/${a.channelId ?? ''}`),
    },
    engagement: { likes: countOf(likesText) ?? 0, replies: level === 0 ? countOf(t.replyCount) ?? 0 : null },
  };
}

/** An older-format `commentRenderer`. */
function fromRenderer(r: Json): Comment {
  const nav = r.authorEndpoint?.browseEndpoint;
  const level = String(r.commentId ?? '').includes('.') ? 1 : 0;
  return {
    id: String(r.commentId ?? ''),
    content: textOf(r.contentText) ?? '',
    publishedTimeText: textOf(r.publishedTimeText),
    publishedTime: relativeToIso(textOf(r.publishedTimeText)),
    replyLevel: level,
    author: {
      name: textOf(r.authorText) ?? '',
      channelId: String(nav?.browseId ?? ''),
      isVerified: Array.isArray(r.authorCommentBadge ? [1] : r.authorBadges) && !!r.authorBadges?.length,
      isCreator: r.authorIsChannelOwner === true,
      avatarUrl: String(r.authorThumbnail?.thumbnails?.at(-1)?.url ?? ''),
      channelUrl: siteUrl(nav?.canonicalBaseUrl ?? `/channel/${nav?.browseId ?? ''}`),
    },
    engagement: { likes: countOf(textOf(r.voteCount)) ?? 0, replies: level === 0 ? r.replyCount ?? 0 : null },
  };
}

/** The token in a continuation item (scroll trigger or "Show more replies" button). */
const tokenOf = (item: Json): string | null => {
  const t = findFirst(item, 'continuationCommand')?.token ?? findFirst(item, 'nextContinuationData')?.continuation;
  return typeof t === 'string' && t ? t : null;
};

/** The comments of one `next` continuation answer (a comments page or a replies page). */
export function parseCommentsPage(page: Json): { comments: Comment[]; continuationToken: string | null } {
  const actions: Json[] = page?.onResponseReceivedEndpoints ?? [];
  const items: Json[] = actions.flatMap((a) => (a?.reloadContinuationItemsCommand ?? a?.appendContinuationItemsAction)?.continuationItems ?? []);
  const ents = entities(page);
  const comments: Comment[] = [];
  let next: string | null = null;
  for (const item of items) {
    if (item.continuationItemRenderer) next = tokenOf(item.continuationItemRenderer);
    const thread = item.commentThreadRenderer;
    const single = item.commentViewModel ?? item.commentRenderer;
    let c: Comment | null = null;
    if (thread) {
      const vm = thread.commentViewModel?.commentViewModel;
      c = vm ? fromViewModel(vm, ents) : thread.comment?.commentRenderer ? fromRenderer(thread.comment.commentRenderer) : null;
      const repliesToken = tokenOf(thread.replies?.commentRepliesRenderer?.contents ?? thread.replies);
      if (c && repliesToken) c.repliesContinuationToken = repliesToken;
    } else if (item.commentViewModel) c = fromViewModel(single, ents);
    else if (item.commentRenderer) c = fromRenderer(single);
    if (c) comments.push(c);
    else if (thread || single) throw new Error('comment without its data');
  }
  return { comments, continuationToken: next };
}

/** A page of comments (or, with a thread's `repliesContinuationToken`, of its replies). */
export async function getComments(ctx: RunContext<NativeState>, videoId: string, order: 'top' | 'newest', token?: string): Promise<{ comments: Comment[]; continuationToken: string | null }> {
  const continuation = token ?? commentsToken(videoId, order === 'newest' ? 1 : 0);
  // Only a token the caller sent can be blamed; a refused first page is the video's comments being unreachable.
  const on4xx = token ? () => new InputError('Invalid continuationToken: it does not belong to this video or has expired.') : () => new NotFoundError(`Comments not found or unavailable for video: ${videoId}.`);
  const page = await innertube(ctx, '/next', { continuation }, { on4xx });
  ctx.setNative(page);
  // Comments turned off: the answer has no comment section items at all (spec §4.1: empty array).
  if (!page?.onResponseReceivedEndpoints && !findAll(page, 'commentThreadRenderer', 1).length) {
    if (page?.responseContext) return { comments: [], continuationToken: null };
    throw invalidStructure(ctx, 'comments: not a next answer', SERVICE);
  }
  try {
    return parseCommentsPage(page);
  } catch (err) {
    throw invalidStructure(ctx, `comments: ${(err as Error).message}`, SERVICE);
  }
}
