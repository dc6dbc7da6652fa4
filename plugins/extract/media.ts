/**
 * Local media work of the extract lane (issue 15): `ffprobe` measures and identifies media,
 * `ffmpeg` normalises audio and cuts it into chunks the transcription API accepts, samples video
 * keyframes at scene changes (capped, evenly spread), and downscales images; `tesseract` OCRs
 * images. Everything runs in child processes under the lane's process gate.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, OperationFailedError, ServiceError } from '../../core/sdk.js';
import { runTool, type Gate } from '../../core/sdk.js';

/** What the lane needs to run tools. */
export interface ToolDeps {
  gate: Gate;
  signal: AbortSignal;
  timeoutMs: number;
}

/** What ffprobe says about a file. */
export interface Probe {
  /** ffprobe's `format_name`, e.g. `mov,mp4,m4a,3gp,3g2,mj2`. */
  format: string;
  duration: number;
  audio: string | null;
  video: string | null;
}

const tool = (deps: ToolDeps, cmd: string, args: string[], maxStderr?: number) =>
  deps.gate.run(() => runTool(cmd, args, { signal: deps.signal, timeoutMs: deps.timeoutMs, maxStderr }), deps.signal);

/** 500 `Failed to extract <kind> data: <reason>` (issue 15), unless the failure is already a catalogue error. */
export function failure(kind: string, reason: string, err?: unknown): Error {
  if (err instanceof ServiceError) return err;
  return new OperationFailedError(`Failed to extract ${kind} data: ${reason}`, { cause: err });
}

/** Probes `file`; media ffprobe cannot read is the caller's input (400). */
export async function probe(deps: ToolDeps, file: string, kind: string): Promise<Probe> {
  let out: string;
  try {
    out = (await tool(deps, 'ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file])).stdout.toString();
  } catch (err) {
    if (deps.signal.aborted) throw err;
    throw new InputError(`The ${kind} could not be read: it is not a supported ${kind} file.`, { cause: err });
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
export async function audioChunks(deps: ToolDeps, file: string, dir: string, chunkSeconds: number, kind: string): Promise<string[]> {
  const pattern = join(dir, 'chunk-%04d.mp3');
  try {
    await tool(deps, 'ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', file, '-vn', '-ac', '1', '-ar', '16000', '-af', 'loudnorm=I=-16:TP=-1.5:LRA=11', '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'segment', '-segment_time', String(chunkSeconds), '-reset_timestamps', '1', pattern]);
  } catch (err) {
    if (deps.signal.aborted) throw err;
    throw failure(kind, 'the audio could not be decoded.', err);
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
export async function keyframes(deps: ToolDeps, file: string, dir: string, duration: number, max: number): Promise<Frame[]> {
  const grab = async (name: string, select: string, limit: number): Promise<Frame[]> => {
    const out = join(dir, `${name}-%04d.jpg`);
    let stderr: string;
    try {
      ({ stderr } = await tool(deps, 'ffmpeg', ['-hide_banner', '-nostdin', '-i', file, '-an', '-vf', `${select},showinfo,scale='min(768,iw)':-2`, '-fps_mode', 'vfr', '-frames:v', String(limit), '-q:v', '4', out], 4 * 1024 * 1024));
    } catch (err) {
      if (deps.signal.aborted) throw err;
      throw failure('video', 'frames could not be sampled.', err);
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

/** An image made ready for a vision model: at most 1568 px a side, JPEG. */
export async function modelImage(deps: ToolDeps, file: string, out: string): Promise<Buffer> {
  try {
    await tool(deps, 'ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', file, '-vf', "scale='min(1568,iw)':'min(1568,ih)':force_original_aspect_ratio=decrease,format=yuvj420p", '-frames:v', '1', '-q:v', '3', out]);
  } catch (err) {
    if (deps.signal.aborted) throw err;
    throw new InputError('An image could not be read: it is not a supported image file.', { cause: err });
  }
  return readFile(out);
}

/** Tesseract's text of an image ('' when it finds none). */
export async function ocrImage(deps: ToolDeps, file: string, languages: string): Promise<string> {
  try {
    const { stdout } = await tool(deps, 'tesseract', [file, 'stdout', '-l', languages, '--psm', '3']);
    return stdout.toString('utf8').replace(/\f/g, '').replace(/\n{3,}/g, '\n\n').trim();
  } catch (err) {
    if (deps.signal.aborted) throw err;
    throw failure('image', 'OCR failed.', err);
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
