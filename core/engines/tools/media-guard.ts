/**
 * What ffmpeg and ffprobe may open (issue 24, finding 5: an HLS playlist given as "audio" made
 * ffmpeg open host files it named). A file is sniffed for the text formats that point at other
 * files or streams (HLS and other M3U playlists, DASH manifests, ffconcat lists, SDP, RTSP/RTP
 * descriptions, Smooth Streaming, image sequences by pattern) and refused with a 400 before any
 * tool sees it; every run also gets `-protocol_whitelist file` and a demuxer list
 * (`-format_whitelist` while probing, the probed demuxer with `-f` after), so a format that slips
 * past the sniff still cannot open anything but the one file it was given.
 */
import { InputError } from '../../errors.js';

/** Formats that reference other inputs, with the name used in messages. */
const REFERENCING: [RegExp, string][] = [
  [/^#EXTM3U/, 'an HLS/M3U playlist'],
  [/^(?:\s*#[^\n]*\n)*\s*(?:file|https?|rtmp|rtsp|udp|tcp|concat|subfile|crypto|data):/i, 'a list of other files or streams'],
  [/<MPD[\s>]/, 'a DASH manifest'],
  [/^ffconcat version/, 'an ffconcat list'],
  [/^v=0\s*[\r\n]+o=/, 'an SDP stream description'],
  [/<SmoothStreamingMedia[\s>]/, 'a Smooth Streaming manifest'],
  [/^\[playlist\]/i, 'a PLS playlist'],
  [/<(?:smil|asx|ASX|playlist)[\s>]/, 'a playlist'],
];

/** Throws a 400 when `head` (the first bytes of the input) is a playlist or stream description. */
export function refuseReferencing(head: Uint8Array, kind: string): void {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, 4096)).toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '');
  for (const [re, what] of REFERENCING) {
    if (re.test(text)) throw new InputError(`The ${kind} is ${what}, not ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} file: send the media file itself.`);
  }
}

/** Demuxers ffprobe may use to identify audio and video of the extract lanes (issue 15 formats). */
export const MEDIA_DEMUXERS = ['wav', 'mp3', 'aiff', 'aac', 'ogg', 'flac', 'mov', 'mp4', 'm4a', '3gp', '3g2', 'mj2', 'mpeg', 'mpegvideo', 'avi', 'flv', 'matroska', 'webm', 'asf'];

/** The demuxer to pass with `-f` for ffprobe's `format_name` (its first name), when it is one of ours. */
export function demuxerOf(formatName: string): string | undefined {
  const first = formatName.split(',')[0]!;
  return MEDIA_DEMUXERS.includes(first) ? first : undefined;
}

/** The ffmpeg image demuxer for an image format read from its header. */
export const IMAGE_DEMUXERS: Record<string, string> = {
  png: 'png_pipe',
  jpeg: 'jpeg_pipe',
  gif: 'gif',
  webp: 'webp_pipe',
  bmp: 'bmp_pipe',
  tiff: 'tiff_pipe',
};

/** Input options that keep ffmpeg/ffprobe on the one local file they are given. */
export const LOCAL_ONLY = ['-protocol_whitelist', 'file'];
