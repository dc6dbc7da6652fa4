/**
 * `trim_video` (issue 28): the original service's trim route, kept on the direct lane. A cut of
 * a video given by URL or base64, stored in the file store behind a 24-hour signed link. Priced
 * per started minute of output, which the timestamps fix before any work, so the hold is exact.
 */
import { Type, defineCapability, perUnit, type Static } from '../sdk.js';

/** Credits per started minute of the cut (issue 28: "priced per started minute of output"). */
export const TRIM_CREDITS_PER_MINUTE = 10;
/** Longest cut one call may ask for; the reservation never exceeds its price. */
export const TRIM_MAX_SECONDS = 4 * 3600;

const TIMESTAMP = '^[0-9]{2}:[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,3})?$';

/** Seconds of `HH:MM:SS[.mmm]` (NaN when it is not one). */
export function timestampSeconds(text: string): number {
  const m = new RegExp(TIMESTAMP).exec(String(text).trim());
  if (!m) return NaN;
  const [h, min, s] = String(text).trim().split(':').map(Number) as [number, number, number];
  return Math.round((h * 3600 + min * 60 + s) * 1000) / 1000;
}

/** Input of trim-video. */
export const TrimVideoInput = Type.Object({
  videoUrl: Type.String({ minLength: 1, description: 'The video: an http(s) URL, or with `inputMethod: "base64"` its base64 content (a data: URL is accepted). mp4, mov, webm, mkv, avi, flv, mpeg, wmv, 3gp.' }),
  inputMethod: Type.Optional(Type.Union([Type.Literal('url'), Type.Literal('base64')], { description: 'How `videoUrl` is given: `url` (default, fetched through the SSRF guard) or `base64`.' })),
  startTimestamp: Type.String({ pattern: TIMESTAMP, description: 'Start of the cut, `HH:MM:SS` or `HH:MM:SS.mmm`.' }),
  endTimestamp: Type.String({ pattern: TIMESTAMP, description: 'End of the cut, `HH:MM:SS` or `HH:MM:SS.mmm`: after the start and within the video.' }),
});

/** Output of trim-video. */
export const TrimVideoOutput = Type.Object({
  url: Type.String({ description: 'Temporary signed download URL of the cut, valid 24 hours.' }),
  mode: Type.Union([Type.Literal('copy'), Type.Literal('reencode')], {
    description: '`copy`: the streams were copied untouched (the cut starts on a keyframe and ends on one or at the end); `reencode`: H.264/AAC MP4, frame-accurate.',
  }),
  duration: Type.Number({ description: 'Length of the cut in seconds (the charged minutes are this, rounded up).' }),
});

const isHttp = (v: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(v.trim()).protocol);
  } catch {
    return false;
  }
};

/** Cross-field checks: end after start, a cut no longer than the cap, a URL when the method is url. */
export function checkTrim(i: Static<typeof TrimVideoInput>): string | undefined {
  const start = timestampSeconds(i.startTimestamp);
  const end = timestampSeconds(i.endTimestamp);
  if (!(end > start)) return "'endTimestamp' must be after 'startTimestamp'.";
  if (end - start > TRIM_MAX_SECONDS) return `The cut is longer than the ${TRIM_MAX_SECONDS / 3600} h limit.`;
  if ((i.inputMethod ?? 'url') === 'url' && !isHttp(i.videoUrl)) return "'videoUrl' must be an http or https URL (or set 'inputMethod' to 'base64').";
  return undefined;
}

/** Started minutes of the cut the input asks for (what a successful call costs). */
export const trimMinutes = (i: Static<typeof TrimVideoInput>) => Math.ceil(Math.max(0, timestampSeconds(i.endTimestamp) - timestampSeconds(i.startTimestamp)) / 60) || 1;

/** `trim_video`: the direct-lane trim job, served by the `video_trim` plugin. */
export const trimVideo = defineCapability({
  id: 'trim_video',
  title: 'Trim a video',
  summary: `Cut a video between two timestamps and return a 24-hour download link (stream copy on keyframes, re-encoded otherwise). ${TRIM_CREDITS_PER_MINUTE} credits per started minute of output.`,
  tags: ['video', 'trim', 'cut', 'clip', 'ffmpeg', 'media'],
  visibility: 'legacy',
  input: TrimVideoInput,
  output: TrimVideoOutput,
  cost: perUnit<Static<typeof TrimVideoInput>>({ unit: 'minutes', credits: TRIM_CREDITS_PER_MINUTE, max: trimMinutes, note: `${TRIM_CREDITS_PER_MINUTE} credits per started minute of the cut` }),
  messages: {
    videoUrl: "'videoUrl' parameter is required and must be a non-empty string.",
    inputMethod: "'inputMethod' must be 'url' or 'base64'.",
    startTimestamp: "'startTimestamp' parameter is required and must be a timestamp HH:MM:SS or HH:MM:SS.mmm.",
    endTimestamp: "'endTimestamp' parameter is required and must be a timestamp HH:MM:SS or HH:MM:SS.mmm.",
  },
  validate: checkTrim,
});

export default [trimVideo];
