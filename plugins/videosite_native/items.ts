/**
 * List items of the site's pages (channel tabs, search results, related videos) mapped to spec
 * §2.5 video summaries and to channel and playlist entries. Both generations of renderers are read:
 * the classic ones (`videoRenderer`, `gridVideoRenderer`, `compactVideoRenderer`, `reelItemRenderer`,
 * `channelRenderer`, `playlistRenderer`) and the view models that replace them
 * (`lockupViewModel`, `shortsLockupViewModel`).
 */
import { bestImage, countOf, durationSeconds, findAll, findFirst, relativeToIso, siteUrl, textOf, type Json } from './text.js';

/** A spec §2.5 video summary. */
export interface VideoSummary {
  id: string;
  title: string;
  thumbnail: string;
  url: string;
  type: 'video' | 'short';
  publishDateText: string | null;
  publishDate: string | null;
  viewCountText: string | null;
  viewCountInt: number | null;
  lengthText: string | null;
  /** Only on a stream upcoming or live: see audienceOf. */
  liveStatus?: 'upcoming' | 'live';
  scheduledStartTime?: string | null;
  concurrentViewers?: number | null;
  concurrentViewersText?: string;
  lengthSeconds?: number | null;
  description?: string;
  channel: Record<string, unknown>;
}

const thumbOf = (id: string) => `https://i.ytimg.com/vi/${id}/hqdefault.jpg`;

/** The channel a byline's run links to. */
function bylineChannel(byline: Json): Record<string, unknown> {
  const run = byline?.runs?.[0];
  const nav = run?.navigationEndpoint?.browseEndpoint;
  const handle = typeof nav?.canonicalBaseUrl === 'string' && nav.canonicalBaseUrl.startsWith('/@') ? nav.canonicalBaseUrl.slice(1) : null;
  return { id: nav?.browseId ?? null, title: run?.text ?? textOf(byline), handle, url: nav ? siteUrl(nav.canonicalBaseUrl ?? `/channel/${nav.browseId}`) : null };
}

/**
 * A listed stream upcoming or live shows its audience where other items show views ("6 waiting",
 * "1,448 watching", as recorded related videos show it) and no view count at all: the audience
 * goes to its own fields and the view fields stay null, as in the video detail (live.ts).
 */
function audienceOf(viewsText: string | null, scheduledStartTime: string | null | undefined): Partial<VideoSummary> | undefined {
  const waiting = /\bwaiting\b/i.test(viewsText ?? '');
  if (!waiting && !/\bwatching\b/i.test(viewsText ?? '') && !scheduledStartTime) return undefined;
  const upcoming = waiting || !!scheduledStartTime;
  return {
    liveStatus: upcoming ? 'upcoming' : 'live',
    ...(upcoming ? { scheduledStartTime: scheduledStartTime ?? null } : {}),
    concurrentViewers: countOf(viewsText),
    ...(viewsText ? { concurrentViewersText: viewsText } : {}),
  };
}

function summary(id: string, short: boolean, title: string, fields: Partial<VideoSummary>): VideoSummary {
  const published = fields.publishDateText ?? null;
  const audience = audienceOf(fields.viewCountText ?? null, fields.scheduledStartTime);
  const views = audience ? null : (fields.viewCountText ?? null);
  return {
    id,
    title,
    thumbnail: fields.thumbnail ?? thumbOf(id),
    url: short ? `https://www.youtube.com/shorts/${id}` : `https://www.youtube.com/watch?v=${id}`,
    type: short ? 'short' : 'video',
    publishDateText: published,
    // An upcoming item is published when it starts, as in the video detail.
    publishDate: fields.scheduledStartTime ?? relativeToIso(published),
    viewCountText: views,
    viewCountInt: countOf(views),
    lengthText: fields.lengthText ?? null,
    ...audience,
    ...(fields.lengthSeconds !== undefined ? { lengthSeconds: fields.lengthSeconds } : {}),
    ...(fields.description ? { description: fields.description } : {}),
    channel: fields.channel ?? {},
  };
}

/** A classic video renderer (search, channel grid, related). */
function fromVideoRenderer(r: Json): VideoSummary | null {
  if (typeof r?.videoId !== 'string') return null;
  const lengthText = textOf(r.lengthText) ?? textOf(findFirst(r.thumbnailOverlays, 'thumbnailOverlayTimeStatusRenderer')?.text);
  const description = textOf(r.descriptionSnippet) ?? (r.detailedMetadataSnippets ? textOf(r.detailedMetadataSnippets[0]?.snippetText) : null);
  const start = String(r.upcomingEventData?.startTime ?? '');
  return summary(r.videoId, false, textOf(r.title) ?? '', {
    scheduledStartTime: /^\d+$/.test(start) ? new Date(Number(start) * 1000).toISOString() : undefined,
    thumbnail: bestImage(r.thumbnail) ?? undefined,
    publishDateText: textOf(r.publishedTimeText),
    viewCountText: textOf(r.viewCountText) ?? textOf(r.shortViewCountText),
    lengthText,
    lengthSeconds: durationSeconds(lengthText),
    description: description ?? undefined,
    channel: bylineChannel(r.ownerText ?? r.longBylineText ?? r.shortBylineText),
  });
}

/** A Short in the classic or the view-model form. */
function fromShort(r: Json): VideoSummary | null {
  const id = r?.videoId ?? findFirst(r?.onTap, 'reelWatchEndpoint')?.videoId ?? String(r?.entityId ?? '').replace(/^shorts-shelf-item-/, '');
  if (typeof id !== 'string' || !/^[\w-]{11}$/.test(id)) return null;
  const title = textOf(r.headline) ?? textOf(r.overlayMetadata?.primaryText) ?? '';
  const views = textOf(r.viewCountText) ?? textOf(r.overlayMetadata?.secondaryText);
  return summary(id, true, title, { thumbnail: bestImage(r.thumbnail) ?? bestImage(r.thumbnail?.sources ? r.thumbnail : undefined) ?? undefined, viewCountText: views });
}

/** A `lockupViewModel` video (its metadata rows: channel, then "views • age"). */
function fromLockupVideo(r: Json): VideoSummary | null {
  if (typeof r?.contentId !== 'string' || !/VIDEO/.test(String(r.contentType ?? 'VIDEO'))) return null;
  const meta = r.metadata?.lockupMetadataViewModel;
  const parts: string[] = findAll(meta?.metadata, 'metadataParts').flatMap((ps: Json[]) => ps.map((p) => textOf(p?.text) ?? '')).filter(Boolean);
  const views = parts.find((p) => /view|watching|waiting/i.test(p)) ?? null;
  const age = parts.find((p) => /ago|streamed|premier/i.test(p)) ?? null;
  const badge = findAll(r.contentImage, 'thumbnailBadgeViewModel').map((b: Json) => b.text).find((t: Json) => durationSeconds(t) !== null) ?? null;
  const channelNav = findFirst(meta?.metadata, 'browseEndpoint');
  const channelName = parts.find((p) => p !== views && p !== age) ?? null;
  return summary(r.contentId, false, textOf(meta?.title) ?? '', {
    thumbnail: bestImage(findFirst(r.contentImage, 'image')) ?? undefined,
    publishDateText: age,
    viewCountText: views,
    lengthText: badge,
    lengthSeconds: durationSeconds(badge),
    channel: { id: channelNav?.browseId ?? null, title: channelName, handle: channelNav?.canonicalBaseUrl?.startsWith('/@') ? channelNav.canonicalBaseUrl.slice(1) : null, url: channelNav ? siteUrl(channelNav.canonicalBaseUrl ?? `/channel/${channelNav.browseId}`) : null },
  });
}

/** Every video and Short in `root`, in page order, each once. */
export function videosIn(root: Json): VideoSummary[] {
  const seen = new Set<string>();
  const out: VideoSummary[] = [];
  const add = (v: VideoSummary | null) => {
    if (v && !seen.has(v.id)) {
      seen.add(v.id);
      out.push(v);
    }
  };
  // One walk in document order over every renderer kind keeps the page's own order.
  const kinds: Record<string, (r: Json) => VideoSummary | null> = {
    videoRenderer: fromVideoRenderer,
    gridVideoRenderer: fromVideoRenderer,
    compactVideoRenderer: fromVideoRenderer,
    reelItemRenderer: fromShort,
    shortsLockupViewModel: fromShort,
    lockupViewModel: fromLockupVideo,
  };
  const stack: Json[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    const kind = Array.isArray(node) ? undefined : Object.keys(node).find((k) => k in kinds && node[k] && typeof node[k] === 'object');
    if (kind) {
      add(kinds[kind]!(node[kind]));
      continue;
    }
    const values = Array.isArray(node) ? node : Object.values(node);
    for (let i = values.length - 1; i >= 0; i--) stack.push(values[i]);
  }
  return out;
}

/** Channels in search results. */
export function channelsIn(root: Json): Record<string, unknown>[] {
  return findAll(root, 'channelRenderer').map((c: Json) => {
    const base = c.navigationEndpoint?.browseEndpoint?.canonicalBaseUrl;
    // Current result pages put the @handle where the subscriber count was, and the count where the video count was.
    const texts = [textOf(c.subscriberCountText), textOf(c.videoCountText)].filter((t): t is string => !!t);
    const handle = texts.find((t) => t.startsWith('@')) ?? (typeof base === 'string' && base.startsWith('/@') ? base.slice(1) : null);
    return {
      id: c.channelId,
      title: textOf(c.title) ?? '',
      handle,
      url: siteUrl(base ?? `/channel/${c.channelId}`),
      thumbnail: bestImage(c.thumbnail),
      subscriberCountText: texts.find((t) => /subscriber/i.test(t)) ?? null,
      description: textOf(c.descriptionSnippet) ?? '',
    };
  });
}

/** Playlists in search results (classic renderer and lockup view model). */
export function playlistsIn(root: Json): Record<string, unknown>[] {
  const classic = findAll(root, 'playlistRenderer').map((p: Json) => ({
    id: p.playlistId,
    title: textOf(p.title) ?? '',
    url: `https://www.youtube.com/playlist?list=${p.playlistId}`,
    thumbnail: bestImage(p.thumbnails?.[0] ?? p.thumbnail),
    videoCount: countOf(textOf(p.videoCountText) ?? p.videoCount),
    channel: bylineChannel(p.shortBylineText ?? p.longBylineText),
  }));
  const lockups = findAll(root, 'lockupViewModel')
    .filter((l: Json) => /PLAYLIST/.test(String(l.contentType)))
    .map((l: Json) => ({
      id: l.contentId,
      title: textOf(l.metadata?.lockupMetadataViewModel?.title) ?? '',
      url: `https://www.youtube.com/playlist?list=${l.contentId}`,
      thumbnail: bestImage(findFirst(l.contentImage, 'image')),
      videoCount: countOf(findAll(l.contentImage, 'thumbnailBadgeViewModel').map((b: Json) => b.text).find((t: Json) => /video/i.test(String(t)))),
      channel: {},
    }));
  return [...classic, ...lockups];
}
