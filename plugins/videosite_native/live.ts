/**
 * The live state of a video (upcoming stream or premiere, live now, a past stream, none) and what
 * goes with it. Two things the site shows for these are not what they look like:
 * - the counter under the title says "6 waiting" or "1,234 watching now" instead of views: people
 *   there at this moment, not views (yt-dlp likewise keeps it apart as `concurrent_view_count`);
 * - the player's `videoDetails.viewCount` is "0" before a stream starts (the recorded scheduled
 *   stream of Invidious' fixtures: "0" beside "6 waiting"), a placeholder rather than a count.
 * The scheduled start is in the player answer twice: the offline slate's `scheduledStartTime`
 * (unix seconds; in the ANDROID answers this plugin reads, which carry no microformat) and the
 * microformat's `liveBroadcastDetails.startTimestamp` (ISO; WEB answers). Both checked equal on
 * that recording.
 */
import type { PlayerResponse } from './player.js';
import { countOf, findFirst, textOf, type Json } from './text.js';

/** Where a video stands as a live broadcast. */
export type LiveStatus = 'none' | 'upcoming' | 'live' | 'ended';

/** The live fields of a video detail. */
export interface LiveInfo {
  status: LiveStatus;
  /** When an upcoming stream or premiere is due to start (ISO 8601); null otherwise. */
  scheduledStartTime: string | null;
  /** People waiting (upcoming) or watching (live) as the site shows them, and as a number. */
  concurrentViewersText: string | null;
  concurrentViewers: number | null;
}

/** The player's statement of the video's live state. */
export function liveStatusOf(player: PlayerResponse): LiveStatus {
  const d = player.videoDetails ?? {};
  if (d.isUpcoming === true) return 'upcoming';
  if (d.isLive === true) return 'live';
  return d.isLiveContent === true ? 'ended' : 'none';
}

/** The scheduled start of an upcoming video (ISO 8601), from the offline slate, else the microformat. */
export function scheduledStartOf(player: PlayerResponse): string | null {
  const slate = player.playabilityStatus?.liveStreamability?.liveStreamabilityRenderer?.offlineSlate?.liveStreamOfflineSlateRenderer;
  const unix = slate?.scheduledStartTime;
  if (typeof unix === 'string' && /^\d+$/.test(unix)) return new Date(Number(unix) * 1000).toISOString();
  const stamp = Date.parse(player.microformat?.playerMicroformatRenderer?.liveBroadcastDetails?.startTimestamp ?? '');
  return Number.isFinite(stamp) ? new Date(stamp).toISOString() : null;
}

/**
 * Live state, schedule and audience of a video from its player answer and the counter of its
 * `next` answer (`videoPrimaryInfoRenderer.viewCount`). The counter is an audience when the
 * renderer flags it `isLive` (it does for "waiting" too) or the video is upcoming or live.
 */
export function liveInfoOf(player: PlayerResponse, counter: Json): LiveInfo {
  const status = liveStatusOf(player);
  const renderer = findFirst(counter, 'videoViewCountRenderer') ?? counter;
  const audience = renderer?.isLive === true || status === 'upcoming' || status === 'live';
  const text = audience ? textOf(renderer?.viewCount) : null;
  return {
    status,
    scheduledStartTime: status === 'upcoming' ? scheduledStartOf(player) : null,
    concurrentViewersText: text,
    concurrentViewers: countOf(text),
  };
}

/**
 * The view count the player states, or null where it states none: not a number, or the "0" the
 * site puts in an upcoming or running stream's answer while it shows no view count for it (the
 * counter shows the audience instead): reported as 0, it would read as a count nobody made.
 */
export function viewsOf(player: PlayerResponse, status: LiveStatus): number | null {
  const raw = player.videoDetails?.viewCount;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) return null;
  const n = Number(raw);
  return n === 0 && (status === 'upcoming' || status === 'live') ? null : n;
}
