/**
 * extract-audio (issue 15): the file is identified and measured with ffprobe (wav, mp3, aiff,
 * aac, ogg, flac; 100 MB; 9.5 h), normalised and cut into chunks with ffmpeg, transcribed chunk
 * by chunk, and the prompt answered over the transcript. 100 + 20 per started minute.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, MB, type RunContext, type Static } from '../../core/sdk.js';
import { EXTRACT_BASE_CREDITS, type extractAudio } from '../../core/catalogue.js';
import { answer } from './answer.js';
import { loadInputToFile } from '../../core/sdk.js';
import { lane, report, type Lane } from './lane.js';
import { AUDIO_FORMATS, audioChunks, human, mediaInput, probe, type MediaInput, type Probe } from './media.js';
import { transcribe } from './model.js';
import { withScratch } from '../../core/sdk.js';

type Input = Static<typeof extractAudio.input>;

/** Transcribes the audio track of `file`, chunk by chunk in order, with the chunks' start times. */
export async function transcribeTrack(l: Lane, media: MediaInput, dir: string, kind: string): Promise<string> {
  const chunks = await audioChunks(l.tools, media, dir, l.settings.audioChunkSeconds, kind);
  const texts = await Promise.all(chunks.map(async (c, i) => ({ at: i * l.settings.audioChunkSeconds, text: await transcribe(l.model, await readFile(c), `chunk-${i}.mp3`, 'audio/mpeg') })));
  if (texts.length === 1) return texts[0]!.text;
  return texts.map((t) => `[${clock(t.at)}] ${t.text}`).join('\n');
}

/** `h:mm:ss` or `m:ss`. */
export function clock(seconds: number): string {
  const s = Math.floor(seconds % 60).toString().padStart(2, '0');
  const m = Math.floor(seconds / 60) % 60;
  const h = Math.floor(seconds / 3600);
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** True when ffprobe's view of a file is an audio format of the lane (an .m4a AAC file counts as aac). */
function isAudioFormat(p: Probe): boolean {
  if (AUDIO_FORMATS.includes(p.format)) return true;
  return p.format.startsWith('mov,mp4') && p.audio === 'aac' && p.video === null;
}

/** Writes the input to the scratch dir (a URL streamed as it arrives) and probes it as audio, enforcing the lane's limits. */
async function measured(l: Lane, audio: { method: 'url' | 'base64'; value: string }, dir: string): Promise<{ media: MediaInput; probe: Probe }> {
  const file = join(dir, 'input');
  await loadInputToFile(l.ctx.engines, audio.method, audio.value, 'audio', l.settings.audioMaxMb * MB, l.ctx.signal, file);
  const p = await probe(l.tools, file, 'audio');
  if (!p.audio || !isAudioFormat(p)) throw new InputError(`Unsupported audio format. Supported formats: ${['wav', 'mp3', 'aiff', 'aac', 'ogg', 'flac'].join(', ')}.`);
  if (!(p.duration > 0)) throw new InputError('The audio has no measurable duration.');
  if (p.duration > l.settings.audioMaxSeconds) throw new InputError(`The audio is longer than the ${human(l.settings.audioMaxSeconds)} limit.`);
  return { media: mediaInput(file, p, 'audio'), probe: p };
}

/** Runs one extract-audio call. */
export async function extractAudioData(input: Input, ctx: RunContext<any, any>) {
  const l = lane(ctx);
  return withScratch('extract-audio', async (dir) => {
    const { media, probe: p } = await measured(l, { method: input.inputMethod, value: input.audio }, dir);
    const minutes = Math.ceil(p.duration / 60);
    // Duration probed: hold its price before transcribing (403, free, if the key cannot cover it).
    await ctx.reserveFor({ minutes });
    const transcript = await transcribeTrack(l, media, dir, 'audio');
    const a = await answer(l.model, { prompt: input.prompt, material: transcript, kind: 'audio transcript', json: input.jsonMode === true }, l.settings);
    ctx.usage.add('minutes', minutes);
    report(l, a, { format: p.format, codec: p.audio });
    return { results: a.results, prompt: input.prompt, audioDuration: Math.round(p.duration * 1000) / 1000, creditUsage: EXTRACT_BASE_CREDITS + 20 * minutes };
  });
}
