/**
 * The cut itself (issue 28): the input is sniffed (playlists refused), probed with ffprobe, the
 * cut checked against its duration, then made with ffmpeg — streams copied when it starts on a
 * keyframe and ends on one (or at the end), re-encoded to H.264/AAC MP4 otherwise. ffmpeg and
 * ffprobe read only the scratch file: local files as the only protocol and a fixed list of
 * container demuxers, so an HLS or concat playlist cannot make them open other paths.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, OperationFailedError, PayloadTooLargeError, ServiceError, inputHead, runGatedTool, sizeText, ToolError, writeInputFile, type Gate, type LoadedInput, type ToolEngine } from '../../core/sdk.js';

/** Containers ffmpeg may open (demuxer names; `mov` covers mp4, m4a, 3gp). */
export const DEMUXERS = 'mov,matroska,webm,avi,flv,mpeg,mpegts,asf';
/** Options that confine every ffmpeg/ffprobe input. */
const CONFINED = ['-protocol_whitelist', 'file', '-format_whitelist', DEMUXERS];

/** What the cut needs to run tools. */
export interface CutDeps {
  gate: Gate;
  signal: AbortSignal;
  timeoutMs: number;
  maxOutputBytes: number;
  /** The run context's tool engine (`ctx.engines.tools`): the server's limits apply. */
  tools: ToolEngine;
  /** The caller's key id: the gate serves callers in turn. */
  caller?: string;
}

/** ffprobe's view of the input. */
export interface VideoProbe {
  format: string;
  duration: number;
  video: string;
  audio: string | null;
  keyframes: number[];
}

/** Refuses text playlists and manifests before any tool sees them (a clearer answer than the demuxer list's). */
export function refusePlaylist(data: Buffer): void {
  const head = data.subarray(0, 512).toString('latin1').replace(/^\uFEFF/, '').trimStart();
  if (/^(#EXTM3U|ffconcat|<\?xml|<MPD|\[playlist\]|#EXTINF)/i.test(head)) {
    throw new InputError('Playlists and manifests (HLS, DASH, concat) are not accepted: send the video file itself.');
  }
}

/** Probes the input: container, duration, codecs and the keyframe times of the first video stream. */
export async function probeVideo(deps: CutDeps, file: string): Promise<VideoProbe> {
  let info: string;
  let packets: string;
  try {
    info = (await runGatedTool(deps, 'ffprobe', ['-v', 'error', ...CONFINED, '-print_format', 'json', '-show_format', '-show_streams', file])).stdout.toString();
    packets = (await runGatedTool(deps, 'ffprobe', ['-v', 'error', ...CONFINED, '-select_streams', 'v:0', '-show_entries', 'packet=pts_time,flags', '-of', 'csv=p=0', file])).stdout.toString();
  } catch (err) {
    if (deps.signal.aborted || err instanceof ServiceError) throw err;
    // ffprobe killed by its limits is the service's failure, not a verdict on the file.
    if (err instanceof ToolError && err.serviceFault) throw new OperationFailedError('Failed to trim video: the video could not be read within the service\'s limits.', { cause: err });
    throw new InputError('The video could not be read: it is not a supported video file.', { cause: err });
  }
  const j = JSON.parse(info) as { format?: { format_name?: string; duration?: string }; streams?: { codec_type?: string; codec_name?: string; disposition?: { attached_pic?: number } }[] };
  const streams = j.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  if (!video) throw new InputError('The file has no video stream.');
  const keyframes = packets
    .split('\n')
    .map((line) => line.split(','))
    .filter(([t, flags]) => flags?.includes('K') && t !== 'N/A')
    .map(([t]) => Number(t))
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  return { format: j.format?.format_name ?? '', duration: Number(j.format?.duration) || 0, video: video.codec_name ?? '', audio: streams.find((s) => s.codec_type === 'audio')?.codec_name ?? null, keyframes };
}

const near = (a: number, b: number) => Math.abs(a - b) < 0.0015;

/** The container a stream copy keeps, or undefined when the streams must be re-encoded. */
export function copyContainer(p: VideoProbe): 'mp4' | 'webm' | 'mkv' | undefined {
  if (p.format.split(',').includes('mov')) return 'mp4';
  if (p.format.startsWith('matroska')) {
    const webVideo = ['vp8', 'vp9', 'av1'].includes(p.video);
    const webAudio = p.audio === null || ['opus', 'vorbis'].includes(p.audio);
    return webVideo && webAudio ? 'webm' : 'mkv';
  }
  return undefined;
}

/** Whether the cut can be a stream copy: it starts on a keyframe and ends on one or at the end. */
export function onKeyframes(p: VideoProbe, start: number, end: number): boolean {
  const startsOnKey = p.keyframes.some((k) => near(k, start));
  const endsOnKey = near(end, p.duration) || end >= p.duration || p.keyframes.some((k) => near(k, end));
  return startsOnKey && endsOnKey;
}

const MEDIA_TYPES = { mp4: 'video/mp4', webm: 'video/webm', mkv: 'video/x-matroska' } as const;

/** A finished cut. */
export interface Cut {
  data: Buffer;
  extension: 'mp4' | 'webm' | 'mkv';
  contentType: string;
  mode: 'copy' | 'reencode';
  duration: number;
}

/** Writes the input, checks the cut against the video and makes it. */
export async function cutVideo(deps: CutDeps, dir: string, video: LoadedInput, start: number, end: number): Promise<Cut> {
  refusePlaylist(inputHead(video));
  const input = join(dir, 'input');
  // A large body's video is copied file to file, never read on the serving thread (issue 24).
  await writeInputFile(video, input);
  const p = await probeVideo(deps, input);
  if (!(p.duration > 0)) throw new InputError('The video has no measurable duration.');
  if (start >= p.duration) throw new InputError(`'startTimestamp' is past the end of the video (${clockText(p.duration)}).`);
  if (end > p.duration + 0.0015) throw new InputError(`'endTimestamp' is past the end of the video (${clockText(p.duration)}).`);
  const container = copyContainer(p);
  const copy = container !== undefined && onKeyframes(p, start, end);
  const extension = copy ? container : 'mp4';
  const out = join(dir, `cut.${extension}`);
  const timing = ['-ss', start.toFixed(3), ...CONFINED, '-i', input, '-t', (Math.min(end, p.duration) - start).toFixed(3), '-map', '0:v:0', '-map', '0:a:0?'];
  const codecs = copy
    ? ['-c', 'copy']
    : ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k'];
  const mux = extension === 'mp4' ? ['-movflags', '+faststart'] : [];
  try {
    await runGatedTool(deps, 'ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...timing, ...codecs, ...mux, '-sn', '-dn', out]);
  } catch (err) {
    if (deps.signal.aborted || err instanceof ServiceError) throw err;
    throw new OperationFailedError('Failed to trim video: the video could not be cut.', { cause: err });
  }
  const size = (await stat(out)).size;
  if (size > deps.maxOutputBytes) throw new PayloadTooLargeError(`The cut is larger than the ${sizeText(deps.maxOutputBytes)} limit.`);
  const made = await probeVideo(deps, out).catch(() => undefined);
  return { data: await readFile(out), extension, contentType: MEDIA_TYPES[extension], mode: copy ? 'copy' : 'reencode', duration: Math.round((made?.duration ?? end - start) * 1000) / 1000 };
}

/** Seconds as `HH:MM:SS.mmm`, the way the timestamps are written. */
export function clockText(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
}
