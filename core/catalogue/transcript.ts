/**
 * The video-site transcript capability (spec §4.1, §4.10) and what its providers share: the
 * spec's language list, the timestamp format and the merging of segments into lines, so the
 * answer reads the same whichever provider served it.
 */
import { Type, defineCapability, flat, type Static } from '../sdk.js';
import { videoIdOf } from './videosite.js';

/** Spec §4.1: the accepted `preferredLanguage` codes. */
export const TRANSCRIPT_LANGUAGES: readonly string[] = (
  'af ak sq am ar hy as ay az bn eu be bho bs bg my ca ceb zh zh-HK zh-CN zh-SG zh-TW zh-Hans zh-Hant hak-TW nan-TW co hr cs da dv nl en en-US eo et ee fil fi fr gl lg ka de el gn gu ht ha haw iw hi hmn hu is ig id ga it ja jv kn kk km rw ko kri ku ky lo la lv ln lt lb mk mg ms ml mt mi mr mn ne nso no ny or om ps fa pl pt pa qu ro ru sm sa gd sr sn sd si sk sl so st es su sw sv tg ta tt te th ti ts tr tk uk ur ug uz vi cy fy xh yi yo zu'
).split(' ');
const LANGUAGE_SET = new Set(TRANSCRIPT_LANGUAGES);

/** Spec §7.1: the 400 text of a missing `videoUrl`. */
export const VIDEO_URL_REQUIRED = 'videoUrl parameter is required';

const TranscriptInput = Type.Object({
  videoUrl: Type.String({ description: 'Full video URL (watch, youtu.be, shorts, live or embed).', minLength: 1 }),
  includeTimestamps: Type.Optional(Type.Boolean({ description: 'Prefix each line with its start time as [m:ss] (default true).' })),
  timestampsToCombine: Type.Optional(Type.Integer({ minimum: 1, description: 'Consecutive segments merged into one timestamped line (default 5).' })),
  preferredLanguage: Type.Optional(Type.String({ description: 'Language code from the spec §4.1 list (e.g. en, de, zh-Hans). When the video has no track in it, the first available track is returned.' })),
});

/** Output of `get_videosite_transcript` (spec §4.1). */
export const TranscriptOutput = Type.Object({
  transcript: Type.String({ description: 'Newline-separated lines, each prefixed by [m:ss] unless includeTimestamps is false.' }),
  language: Type.String({ description: 'Language code of the transcript actually returned.' }),
});

/** Input of `get_videosite_transcript`. */
export type TranscriptInput = Static<typeof TranscriptInput>;

/** A timed piece of a transcript, as providers hand it over. */
export interface TimedText {
  text: string;
  startMs: number;
  durationMs: number;
}

/** `m:ss`, or `h:mm:ss` from an hour on (spec §2.7 "minutes:seconds"). */
export function timestampText(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/**
 * The transcript text of spec §4.1: segments merged `timestampsToCombine` at a time (default 5)
 * into lines, each prefixed `[m:ss] ` with the start of its first segment unless
 * `includeTimestamps` is false (default true). Empty segments are skipped.
 */
export function formatTranscript(segments: TimedText[], opts: { includeTimestamps?: boolean; timestampsToCombine?: number }): string {
  const per = Math.max(1, Math.floor(opts.timestampsToCombine ?? 5));
  const stamps = opts.includeTimestamps ?? true;
  const kept = segments.map((s) => ({ ...s, text: s.text.replace(/\s+/g, ' ').trim() })).filter((s) => s.text);
  const lines: string[] = [];
  for (let i = 0; i < kept.length; i += per) {
    const group = kept.slice(i, i + per);
    const text = group.map((s) => s.text).join(' ');
    lines.push(stamps ? `[${timestampText(group[0]!.startMs)}] ${text}` : text);
  }
  return lines.join('\n');
}

/** Spec §4.1: the 404 text when a video has no subtitles at all. */
export const noSubtitles = (videoId: string) => `No subtitles found for the video: ${videoId}`;

export const getVideositeTranscript = defineCapability({
  id: 'get_videosite_transcript',
  title: 'Video transcript',
  summary: 'Transcript of a video-site video from its captions (manual before auto-generated), optionally with timestamps, in a preferred language or the first one available.',
  tags: ['video', 'transcript', 'captions', 'subtitles', 'videosite'],
  input: TranscriptInput,
  output: TranscriptOutput,
  cost: flat(20),
  messages: {
    videoUrl: VIDEO_URL_REQUIRED,
    includeTimestamps: "'includeTimestamps' must be a boolean.",
    timestampsToCombine: "'timestampsToCombine' must be an integer of at least 1.",
    preferredLanguage: "'preferredLanguage' must be one of the language codes of the documentation (e.g. en, de, zh-Hans).",
  },
  validate(i) {
    if (i.preferredLanguage !== undefined && !LANGUAGE_SET.has(i.preferredLanguage)) {
      return `'preferredLanguage' must be one of the supported language codes; '${String(i.preferredLanguage).slice(0, 40)}' is not (e.g. en, de, zh-Hans).`;
    }
    return videoIdOf(i.videoUrl).error;
  },
  examples: [{ title: 'Transcript with timestamps', input: { videoUrl: 'https://www.youtube.com/watch?v=GJLlxj_dtq8', preferredLanguage: 'en' } }],
});


export default [getVideositeTranscript];
