/**
 * Local media work of the extract lane (issue 15): `ffprobe` measures and identifies media,
 * `ffmpeg` normalises audio and cuts it into chunks the transcription API accepts, samples video
 * keyframes at scene changes (capped, evenly spread), and downscales images; `tesseract` OCRs
 * images. Everything runs confined through the SDK's `runGatedTool` under the lane's process gate,
 * which serves API keys in turn (issue 24). ffmpeg and ffprobe open only the one local file they
 * are given (`-protocol_whitelist file`, a demuxer list while probing, the probed demuxer after),
 * and a playlist or stream description is refused before either sees it.
 */
import { open, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, OperationFailedError, ServiceError, ToolError } from '../../core/sdk.js';
import { IMAGE_DEMUXERS, LOCAL_ONLY, MEDIA_DEMUXERS, demuxerOf, refuseReferencing, runGatedTool, type Gate, type ImageHeader, type ToolEngine } from '../../core/sdk.js';

/** What the lane needs to run tools. */
export interface ToolDeps {
  gate: Gate;
  signal: AbortSignal;
  timeoutMs: number;
  /** The run context's tool engine (its limits). */
  tools: ToolEngine;
  /** The calling key's opaque id: the gate serves keys in turn. */
  caller?: string;
}

/** A probed media file and what ffmpeg may open it as. */
export interface MediaInput {
  file: string;
  /** The demuxer ffprobe found (passed with `-f`). */
  demuxer: string;
  /** Probed duration: decoding stops there, whatever the streams turn out to hold. */
  seconds: number;
}

/** What ffprobe says about a file. */
export interface Probe {
  /** ffprobe's `format_name`, e.g. `mov,mp4,m4a,3gp,3g2,mj2`. */
  format: string;
  duration: number;
  audio: string | null;
  video: string | null;
}

/** What a caller is told when a tool was stopped by the service's own limits (a 500, never their input). */
const STOPPED = 'the processing was stopped by the service (memory or time limit).';

/**
 * The error for a failed tool run: the caller's abort as is; a tool killed by a limit, a signal
 * or a fault of the service → 500 (`Failed to extract … data`); a tool that refused the file → `refused()`.
 */
function toolFailed(deps: ToolDeps, kind: string, err: unknown, refused: () => Error): unknown {
  if (deps.signal.aborted) return err;
  if (err instanceof ServiceError) return err;
  if (err instanceof ToolError && err.serviceFault) return failure(kind, STOPPED, err);
  return refused();
}

/** Refuses a playlist or stream description given as media (400) before any tool opens it. */
export async function refuseLinked(file: string, kind: string): Promise<void> {
  const fh = await open(file, 'r');
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    refuseReferencing(head.subarray(0, bytesRead), kind);
  } finally {
    await fh.close();
  }
}

/** 500 `Failed to extract <kind> data: <reason>` (issue 15), unless the failure is already a catalogue error. */
export function failure(kind: string, reason: string, err?: unknown): Error {
  if (err instanceof ServiceError) return err;
  return new OperationFailedError(`Failed to extract ${kind} data: ${reason}`, { cause: err });
}

/** Probes `file` (playlists refused first); media ffprobe cannot read is the caller's input (400). */
export async function probe(deps: ToolDeps, file: string, kind: string): Promise<Probe> {
  await refuseLinked(file, kind);
  let out: string;
  try {
    out = (await runGatedTool(deps, 'ffprobe', ['-v', 'error', ...LOCAL_ONLY, '-format_whitelist', MEDIA_DEMUXERS.join(','), '-print_format', 'json', '-show_format', '-show_streams', file])).stdout.toString();
  } catch (err) {
    throw toolFailed(deps, kind, err, () => new InputError(`The ${kind} could not be read: it is not a supported ${kind} file.`, { cause: err }));
  }
  const j = JSON.parse(out) as { format?: { format_name?: string; duration?: string }; streams?: { codec_type?: string; codec_name?: string; duration?: string; disposition?: { attached_pic?: number } }[] };
  const streams = j.streams ?? [];
  const audio = streams.find((s) => s.codec_type === 'audio');
  const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  const duration = Number(j.format?.duration) || Math.max(0, ...streams.map((s) => Number(s.duration) || 0));
  return { format: j.format?.format_name ?? '', duration, audio: audio?.codec_name ?? null, video: video?.codec_name ?? null };
}

/**
 * The audio track as mono 16 kHz MP3 chunks of `chunkSeconds`, loudness-normalised (speech
 * models do best on that, and 64 kbit/s keeps a 10-minute chunk under the APIs' 25 MB cap).
 */
export async function audioChunks(deps: ToolDeps, media: MediaInput, dir: string, chunkSeconds: number, kind: string): Promise<string[]> {
  const pattern = join(dir, 'chunk-%04d.mp3');
  try {
    await runGatedTool(deps, 'ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', ...input(media), '-vn', '-ac', '1', '-ar', '16000', '-af', 'loudnorm=I=-16:TP=-1.5:LRA=11', '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'segment', '-segment_time', String(chunkSeconds), '-reset_timestamps', '1', pattern]);
  } catch (err) {
    throw toolFailed(deps, kind, err, () => failure(kind, 'the audio could not be decoded.', err));
  }
  return (await readdir(dir)).filter((f) => /^chunk-\d+\.mp3$/.test(f)).sort().map((f) => join(dir, f));
}

/** One sampled frame. */
export interface Frame {
  /** Seconds from the start. */
  at: number;
  jpeg: Buffer;
}

/** Frames whose `showinfo` line ffmpeg printed, in output order. */
function frameTimes(stderr: string): number[] {
  return [...stderr.matchAll(/\bpts_time:\s*([\d.]+)/g)].map((m) => Number(m[1]));
}

/** Keeps `max` items spread evenly over `items` (first and last kept). */
export function spread<T>(items: T[], max: number): T[] {
  if (items.length <= max) return items;
  if (max === 1) return [items[0]!];
  return Array.from({ length: max }, (_, i) => items[Math.round((i * (items.length - 1)) / (max - 1))]!);
}

/**
 * Keyframes for a vision model: the first frame and every scene change (ffmpeg's `scene` score),
 * evenly thinned to `max`; a video with too few cuts is sampled at even intervals instead.
 */
export async function keyframes(deps: ToolDeps, media: MediaInput, dir: string, duration: number, max: number): Promise<Frame[]> {
  const grab = async (name: string, select: string, limit: number): Promise<Frame[]> => {
    const out = join(dir, `${name}-%04d.jpg`);
    let stderr: string;
    try {
      ({ stderr } = await runGatedTool(deps, 'ffmpeg', ['-hide_banner', '-nostdin', ...input(media), '-an', '-vf', `${select},showinfo,scale='min(768,iw)':-2`, '-fps_mode', 'vfr', '-frames:v', String(limit), '-q:v', '4', out], { maxStderr: 4 * 1024 * 1024 }));
    } catch (err) {
      throw toolFailed(deps, 'video', err, () => failure('video', 'frames could not be sampled.', err));
    }
    const times = frameTimes(stderr);
    const files = (await readdir(dir)).filter((f) => f.startsWith(`${name}-`)).sort();
    return Promise.all(files.map(async (f, i) => ({ at: Math.round((times[i] ?? 0) * 10) / 10, jpeg: await readFile(join(dir, f)) })));
  };
  let frames = await grab('scene', "select='eq(n\\,0)+gt(scene\\,0.3)'", max * 4);
  if (frames.length < Math.min(3, max) && duration > 0) {
    frames = await grab('even', `fps=${Math.min(10, max / duration).toFixed(4)}`, max);
  }
  return spread(frames, max);
}

/** ffmpeg's input options for a probed file: local only, its own demuxer, no further than its duration. */
function input(media: MediaInput): string[] {
  return [...LOCAL_ONLY, '-f', media.demuxer, '-t', String(Math.ceil(media.seconds) + 1), '-i', media.file];
}

/** The demuxer of a probed file, or the 400 for a format the lanes do not take. */
export function mediaInput(file: string, p: Probe, kind: string): MediaInput {
  const demuxer = demuxerOf(p.format);
  if (!demuxer) throw new InputError(`The ${kind} could not be read: it is not a supported ${kind} file.`);
  return { file, demuxer, seconds: p.duration };
}

/** An image (admitted by its header) made ready for a vision model: at most 1568 px a side, JPEG. */
export async function modelImage(deps: ToolDeps, file: string, header: ImageHeader, out: string): Promise<Buffer> {
  try {
    await runGatedTool(deps, 'ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', ...LOCAL_ONLY, '-f', IMAGE_DEMUXERS[header.format]!, '-i', file, '-vf', "scale='min(1568,iw)':'min(1568,ih)':force_original_aspect_ratio=decrease,format=yuvj420p", '-frames:v', '1', '-q:v', '3', out]);
  } catch (err) {
    throw toolFailed(deps, 'image', err, () => new InputError('An image could not be read: it is not a supported image file.', { cause: err }));
  }
  return readFile(out);
}

/** Tesseract's text of an image ('' when it finds none). */
export async function ocrImage(deps: ToolDeps, file: string, languages: string): Promise<string> {
  try {
    const { stdout } = await runGatedTool(deps, 'tesseract', [file, 'stdout', '-l', languages, '--psm', '3']);
    return stdout.toString('utf8').replace(/\f/g, '').replace(/\n{3,}/g, '\n\n').trim();
  } catch (err) {
    throw toolFailed(deps, 'image', err, () => failure('image', 'OCR failed.', err));
  }
}

/** Formats of the audio lane (issue 15: wav mp3 aiff aac ogg flac) as ffprobe names them. */
export const AUDIO_FORMATS = ['wav', 'mp3', 'aiff', 'aac', 'ogg', 'flac'];
/** Formats of the video lane (issue 15: mp4 mpeg mov avi flv mpg webm wmv 3gpp) as ffprobe names them. */
export const VIDEO_FORMATS = ['mov,mp4,m4a,3gp,3g2,mj2', 'mpeg', 'mpegvideo', 'avi', 'flv', 'matroska,webm', 'asf'];

/** Seconds as people read a limit (`9.5 h`, `60 min`). */
export function human(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  return seconds >= 3600 && seconds % 1800 === 0 ? `${seconds / 3600} h` : `${Math.round(seconds / 60)} min`;
}
