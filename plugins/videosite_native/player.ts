/**
 * The `player` answer of a video: fetched as the ANDROID client (its caption URLs work without a
 * proof-of-origin token, as youtube-transcript-api found), and its `playabilityStatus` turned
 * into the clear answers of issue 12, none of them charged: gone/private → 404 naming the id,
 * age/members/region/other restrictions → 404 naming the reason, the site asking "confirm you're
 * not a bot" → 503 with the proxy hint, a reply without the expected parts → 502.
 */
import { NotFoundError, invalidStructure, type RunContext } from '../../core/sdk.js';
import { SERVICE, blocked, innertube, type NativeState } from './session.js';

/** One caption track as the player lists it. */
export interface CaptionTrack {
  baseUrl: string;
  languageCode: string;
  kind?: string;
  name?: { simpleText?: string; runs?: { text: string }[] };
  vssId?: string;
  isTranslatable?: boolean;
}

/** The parts of a player answer this plugin reads. */
export interface PlayerResponse {
  playabilityStatus?: {
    status?: string;
    reason?: string;
    messages?: string[];
    errorScreen?: unknown;
    /** Upcoming streams and premieres: the slate shown until the start, with its time in unix seconds. */
    liveStreamability?: { liveStreamabilityRenderer?: { offlineSlate?: { liveStreamOfflineSlateRenderer?: { scheduledStartTime?: string } } } };
  };
  videoDetails?: {
    videoId?: string;
    title?: string;
    lengthSeconds?: string;
    keywords?: string[];
    channelId?: string;
    shortDescription?: string;
    thumbnail?: { thumbnails?: { url: string; width?: number; height?: number }[] };
    viewCount?: string;
    author?: string;
    isLiveContent?: boolean;
    isLive?: boolean;
    isUpcoming?: boolean;
  };
  microformat?: { playerMicroformatRenderer?: { publishDate?: string; uploadDate?: string; category?: string; ownerProfileUrl?: string; liveBroadcastDetails?: { startTimestamp?: string } } };
  captions?: { playerCaptionsTracklistRenderer?: { captionTracks?: CaptionTrack[] } };
}

/** Plain text of a playability reason (it comes as a string, or as runs in an error screen). */
function reasonOf(p: NonNullable<PlayerResponse['playabilityStatus']>): string {
  const screen = JSON.stringify(p.errorScreen ?? {});
  const sub = /"subreason":\{"(?:simpleText|runs)":(?:"([^"]+)"|\[\{"text":"([^"]+)")/.exec(screen);
  return [p.reason, sub?.[1] ?? sub?.[2]].filter(Boolean).join(': ').trim() || 'no reason given';
}

/**
 * The site's wordings of an age restriction: "Sign in to confirm your age", "This video may be
 * inappropriate for some users.", "Age-restricted video (based on Community Guidelines)".
 */
const AGE = /confirm your age|inappropriate for some users|age[- ]restricted|age verification/i;
const ageRestricted = (id: string) => new NotFoundError(`Video is age-restricted and cannot be read without signing in: ${id}.`);

/**
 * Throws the catalogue error a non-playable state calls for. `LIVE_STREAM_OFFLINE` (an upcoming
 * premiere or stream) is not an error for metadata: the video exists, it has simply not started.
 */
export function checkPlayable(ctx: RunContext<NativeState>, id: string, player: PlayerResponse): void {
  const p = player.playabilityStatus;
  if (!p || typeof p.status !== 'string') throw invalidStructure(ctx, 'player: no playabilityStatus', SERVICE);
  const reason = reasonOf(p);
  switch (p.status) {
    case 'OK':
    case 'LIVE_STREAM_OFFLINE':
      if (!player.videoDetails?.videoId) throw invalidStructure(ctx, 'player: no videoDetails', SERVICE);
      return;
    case 'ERROR':
      throw new NotFoundError(`Video not found or unavailable: ${id} (${reason}).`);
    case 'LOGIN_REQUIRED':
      // Age first: "Sign in to confirm your age" shares its opening with the bot check
      // ("Sign in to confirm you’re not a bot"), which is the only wording that means a block.
      if (AGE.test(reason)) throw ageRestricted(id);
      if (/not a bot|unusual traffic/i.test(reason)) throw blocked(ctx, `player LOGIN_REQUIRED: ${reason}`);
      if (/private/i.test(reason)) throw new NotFoundError(`Video is private: ${id}.`);
      throw new NotFoundError(`Video requires signing in: ${id} (${reason}).`);
    case 'AGE_CHECK_REQUIRED':
    case 'AGE_VERIFICATION_REQUIRED':
      throw ageRestricted(id);
    case 'UNPLAYABLE':
      if (AGE.test(reason)) throw ageRestricted(id);
      if (/members|join this channel/i.test(reason)) throw new NotFoundError(`Video is for channel members only: ${id}.`);
      if (/country|region/i.test(reason)) throw new NotFoundError(`Video is not available in this server's region: ${id}.`);
      throw new NotFoundError(`Video is unplayable: ${id} (${reason}).`);
    default:
      // CONTENT_CHECK_REQUIRED, AGE_CHECK_REQUIRED, a custom state: name what the site says.
      throw new NotFoundError(`Video is not available: ${id} (${reason}).`);
  }
}

/** Fetches and checks the player answer of `id`. */
export async function fetchPlayer(ctx: RunContext<NativeState>, id: string): Promise<PlayerResponse> {
  const player = await innertube<PlayerResponse>(ctx, '/player', { videoId: id, racyCheckOk: true, contentCheckOk: true }, { client: 'ANDROID', on4xx: () => new NotFoundError(`Video not found or unavailable: ${id}.`) });
  checkPlayable(ctx, id, player);
  return player;
}
