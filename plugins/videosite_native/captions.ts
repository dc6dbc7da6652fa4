/**
 * Transcripts from the caption tracks of the player answer, as youtube-transcript-api reads them
 * (issue 12): every manual and auto-generated track, the preferred language when there is one
 * (manual before generated), else the first track (manual before generated); the track's timed
 * text document is fetched through the same base URL and parsed (srv1 `<text start dur>`, srv3
 * `<p t d>`, json3 `events`).
 */
import { NotFoundError, UpstreamError, invalidStructure, type RunContext } from '../../core/sdk.js';
import { noSubtitles, type TimedText } from '../../core/catalogue.js';
import type { CaptionTrack, PlayerResponse } from './player.js';
import { SERVICE, siteText, type NativeState } from './session.js';

/** The track list of a player answer, manual tracks first (stable within each group). */
export function tracksOf(player: PlayerResponse): CaptionTrack[] {
  const all = (player.captions?.playerCaptionsTracklistRenderer?.captionTracks ?? []).filter((t) => t && typeof t.baseUrl === 'string' && typeof t.languageCode === 'string');
  return [...all.filter((t) => t.kind !== 'asr'), ...all.filter((t) => t.kind === 'asr')];
}

/** The track to read: `preferred` (exact code, then its base language: `en-US` → `en`), else the first. */
export function pickTrack(tracks: CaptionTrack[], preferred?: string): CaptionTrack | undefined {
  if (preferred) {
    const want = preferred.toLowerCase();
    const exact = tracks.find((t) => t.languageCode.toLowerCase() === want);
    if (exact) return exact;
    const base = want.split('-')[0];
    const loose = tracks.find((t) => t.languageCode.toLowerCase().split('-')[0] === base);
    if (loose) return loose;
  }
  return tracks[0];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** XML text content: entities decoded (twice: the site escapes markup inside text), tags dropped. */
function xmlText(s: string): string {
  const decode = (t: string) =>
    t.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
      return ENTITIES[e.toLowerCase()] ?? m;
    });
  return decode(decode(s).replace(/<[^>]*>/g, '')).replace(/<[^>]*>/g, '');
}

const attr = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];

/** Parses a timed-text document in any of the site's formats; `undefined` when it is none of them. */
export function parseTimedText(doc: string): TimedText[] | undefined {
  const body = doc.trim();
  if (body.startsWith('{')) {
    try {
      const j = JSON.parse(body) as { events?: { tStartMs?: number; dDurationMs?: number; segs?: { utf8?: string }[] }[] };
      if (!Array.isArray(j.events)) return undefined;
      return j.events.filter((e) => e.segs).map((e) => ({ text: (e.segs ?? []).map((s) => s.utf8 ?? '').join(''), startMs: e.tStartMs ?? 0, durationMs: e.dDurationMs ?? 0 }));
    } catch {
      return undefined;
    }
  }
  if (/<transcript[\s>]/.test(body)) {
    return [...body.matchAll(/<text\b([^>]*)>([\s\S]*?)<\/text>|<text\b([^>]*)\/>/g)].map((m) => {
      const tag = m[1] ?? m[3] ?? '';
      return { text: xmlText(m[2] ?? ''), startMs: Math.round(Number(attr(tag, 'start') ?? 0) * 1000), durationMs: Math.round(Number(attr(tag, 'dur') ?? 0) * 1000) };
    });
  }
  if (/<timedtext[\s>]/.test(body)) {
    return [...body.matchAll(/<p\b([^>]*)>([\s\S]*?)<\/p>/g)].map((m) => ({ text: xmlText(m[2] ?? ''), startMs: Number(attr(m[1]!, 't') ?? 0), durationMs: Number(attr(m[1]!, 'd') ?? 0) }));
  }
  return undefined;
}

/** The track's document URL in the default (srv1) format. */
function documentUrl(track: CaptionTrack): string {
  const u = new URL(track.baseUrl, 'https://www.youtube.com');
  u.searchParams.delete('fmt');
  return u.toString();
}

/** A transcript read from the player's tracks, with the language actually returned. */
export interface ReadTranscript {
  segments: TimedText[];
  language: string;
  kind: 'manual' | 'generated';
}

/**
 * Reads the transcript of a checked player answer. No tracks → 404 `No subtitles found for the
 * video: <id>` (spec §4.1); a live stream or premiere not started says why in the log. A track
 * whose document comes back empty (the site now wants a proof-of-origin token for it) → 502,
 * which lets the executor fall back to the next provider.
 */
export async function readTranscript(ctx: RunContext<NativeState>, id: string, player: PlayerResponse, preferred?: string): Promise<ReadTranscript> {
  const tracks = tracksOf(player);
  const track = pickTrack(tracks, preferred);
  if (!track) {
    const d = player.videoDetails;
    if (d?.isLive || d?.isUpcoming) ctx.log.info({ videoId: id, live: d.isLive, upcoming: d.isUpcoming }, 'no captions yet: the video is live or upcoming');
    throw new NotFoundError(noSubtitles(id));
  }
  const { status, text } = await siteText(ctx, documentUrl(track));
  if (status === 404) throw new NotFoundError(noSubtitles(id));
  if (status >= 400) throw new UpstreamError(`Failed to retrieve data from ${SERVICE} service.`, { cause: new Error(`caption track HTTP ${status}`) });
  if (!text.trim()) {
    const po = /[?&]exp=xpe\b/.test(track.baseUrl);
    throw new UpstreamError(`Failed to retrieve data from ${SERVICE} service.`, { cause: new Error(po ? 'caption track needs a PO token' : 'empty caption track') });
  }
  const segments = parseTimedText(text);
  if (!segments) throw invalidStructure(ctx, 'caption track in an unknown format', SERVICE);
  return { segments: segments.filter((s) => s.text.trim()), language: track.languageCode, kind: track.kind === 'asr' ? 'generated' : 'manual' };
}
