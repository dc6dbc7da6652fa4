/**
 * Video detail (spec §2.6) from two InnerTube answers fetched together: `player` (ANDROID client:
 * title, duration, keywords, views, channel id, captions) and `next` (WEB: likes, comment count,
 * publish date, channel handle, related videos; optional, see mapVideo). With `get_transcript` the captions of the same
 * player answer are read, so the transcript costs one more request, not three.
 */
import { NotFoundError, type RunContext, type Static } from '../../core/sdk.js';
import { timestampText, type VideositeVideo } from '../../core/catalogue.js';
import { readTranscript } from './captions.js';
import { videosIn } from './items.js';
import { liveInfoOf, viewsOf, type LiveInfo } from './live.js';
import { fetchPlayer, type PlayerResponse } from './player.js';
import { innertube, type NativeState } from './session.js';
import { bestImage, countOf, dateTextToIso, findAll, findFirst, formatDuration, relativeToIso, siteUrl, textOf, type Json } from './text.js';

/** Spec §2.6 and the live fields (extra properties, which §2.6 allows; live.ts). */
type Video = Static<typeof VideositeVideo> & {
  liveStatus: LiveInfo['status'];
  scheduledStartTime: LiveInfo['scheduledStartTime'];
  concurrentViewers: LiveInfo['concurrentViewers'];
  concurrentViewersText: LiveInfo['concurrentViewersText'];
};

/** Likes: the view-model button's title ("9.8K") with its exact count from the accessibility text when given. */
function likesOf(primary: Json): { text: string | null; count: number | null } {
  const vm = findFirst(primary, 'likeButtonViewModel');
  const button = vm ? findFirst(vm, 'buttonViewModel') : undefined;
  if (button) {
    const label = String(button.accessibilityText ?? '');
    const exact = /([\d,.\s]+)\s+other/i.exec(label)?.[1];
    return { text: button.title ?? null, count: exact ? countOf(exact) : countOf(button.title) };
  }
  const toggle = findAll(primary, 'toggleButtonRenderer').find((t: Json) => t.defaultIcon?.iconType === 'LIKE');
  const label = toggle?.defaultText?.accessibility?.accessibilityData?.label ?? null;
  return { text: textOf(toggle?.defaultText), count: countOf(label) };
}

/** The comment count shown under the video (entry point header, or the comments panel header). */
function commentsOf(next: Json): string | null {
  const entry = findFirst(next, 'commentsEntryPointHeaderRenderer');
  if (entry?.commentCount) return textOf(entry.commentCount);
  const panel = findAll(next, 'engagementPanelSectionListRenderer').find((p: Json) => p.panelIdentifier === 'engagement-panel-comments-section');
  return textOf(findFirst(panel, 'engagementPanelTitleHeaderRenderer')?.contextualInfo);
}

/** Maps a checked player answer and a `next` answer to spec §2.6. */
export function mapVideo(id: string, short: boolean, player: PlayerResponse, next: Json, ctx: RunContext<NativeState>): Video {
  const d = player.videoDetails!;
  // The checked player answer carries the video; `next` only adds to it. The site sometimes
  // answers `next` with related videos alone (no info renderers): the detail then comes from the
  // player, with what only `next` knows (likes, comment count, date text, handle) left null.
  const primary = findFirst(next, 'videoPrimaryInfoRenderer') ?? {};
  const secondary = findFirst(next, 'videoSecondaryInfoRenderer') ?? {};
  const owner = secondary.owner?.videoOwnerRenderer;
  const ownerRun = owner?.title?.runs?.[0];
  const nav = ownerRun?.navigationEndpoint?.browseEndpoint ?? owner?.navigationEndpoint?.browseEndpoint;
  const channelId = nav?.browseId ?? d.channelId ?? '';
  const base: string | undefined = nav?.canonicalBaseUrl;
  const live = liveInfoOf(player, primary.viewCount);
  const views = viewsOf(player, live.status);
  // The counter under the title is the view count, except for a stream upcoming or live, where it
  // counts the people waiting or watching (it goes to concurrentViewers, see live.ts).
  const counterText = live.concurrentViewersText === null ? textOf(findFirst(primary.viewCount, 'viewCount')) : null;
  const viewsText = counterText ?? (views !== null ? `${views.toLocaleString('en-US')} views` : null);
  const likes = likesOf(primary);
  const commentText = commentsOf(next);
  const dateText = textOf(primary.dateText);
  const micro = player.microformat?.playerMicroformatRenderer;
  const isoFromMicro = micro?.publishDate ? new Date(micro.publishDate).toISOString() : null;
  // An upcoming video is published when it starts (as Invidious reports it): the microformat's date
  // is the day its page was created. A running stream's text is relative ("Started streaming 2 hours ago").
  const publishDate = live.status === 'upcoming' ? (live.scheduledStartTime ?? dateTextToIso(dateText)) : (isoFromMicro ?? dateTextToIso(dateText) ?? relativeToIso(dateText));
  const seconds = Number(d.lengthSeconds);
  const noLength = live.status === 'live' || (live.status === 'upcoming' && !seconds);
  return {
    id,
    thumbnail: bestImage(d.thumbnail) ?? `https://i.ytimg.com/vi/${id}/maxresdefault.jpg`,
    url: short ? `https://www.youtube.com/shorts/${id}` : `https://www.youtube.com/watch?v=${id}`,
    type: short ? 'short' : 'video',
    title: d.title ?? textOf(primary.title) ?? '',
    description: textOf(secondary.attributedDescription) ?? textOf(secondary.description) ?? d.shortDescription ?? '',
    commentCountText: commentText,
    commentCountInt: countOf(commentText),
    likeCountText: likes.text,
    likeCountInt: likes.count,
    viewCountText: viewsText,
    viewCountInt: views ?? countOf(counterText),
    publishDateText: dateText,
    publishDate,
    durationMs: Number.isFinite(seconds) ? seconds * 1000 : null,
    durationFormatted: Number.isFinite(seconds) && !noLength ? formatDuration(seconds) : null,
    liveStatus: live.status,
    scheduledStartTime: live.scheduledStartTime,
    concurrentViewers: live.concurrentViewers,
    concurrentViewersText: live.concurrentViewersText,
    channel: {
      id: channelId,
      url: siteUrl(base ?? `/channel/${channelId}`),
      handle: base?.startsWith('/@') ? base.slice(1) : null,
      title: ownerRun?.text ?? d.author ?? '',
      ...(owner?.subscriberCountText ? { subscriberCountText: textOf(owner.subscriberCountText) } : {}),
      ...(owner?.thumbnail ? { thumbnail: bestImage(owner.thumbnail) } : {}),
    },
    watchNextVideos: videosIn(findFirst(next, 'secondaryResults') ?? {}).map((v) => ({ ...v, videoUrl: v.url })),
    keywords: Array.isArray(d.keywords) ? d.keywords.map(String) : [],
    genre: micro?.category ?? null,
  };
}

/** Fetches and maps one video; `withTranscript` adds spec §2.7 segments when captions exist. */
export async function getVideo(ctx: RunContext<NativeState>, id: string, short: boolean, withTranscript: boolean): Promise<Video> {
  const [player, next] = await Promise.all([
    fetchPlayer(ctx, id),
    innertube(ctx, '/next', { videoId: id, racyCheckOk: true, contentCheckOk: true }, { on4xx: () => new NotFoundError(`Video not found or unavailable: ${id}.`) }),
  ]);
  ctx.setNative({ player, next });
  const video = mapVideo(id, short, player, next, ctx);
  if (!withTranscript) return video;
  try {
    const t = await readTranscript(ctx, id, player, 'en');
    video.transcript = t.segments.map((s) => ({ text: s.text, startMs: String(s.startMs), endMs: String(s.startMs + s.durationMs), startTimeText: timestampText(s.startMs), lang: t.language }));
    video.transcript_only_text = t.segments.map((s) => s.text.replace(/\s+/g, ' ').trim()).join(' ');
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    video.transcript_only_text = null; // Asked for, none exists: spec §2.6 "present when requested and available".
  }
  return video;
}
