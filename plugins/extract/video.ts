/**
 * extract-video (issue 15): the file is identified and measured with ffprobe (mp4, mpeg, mov,
 * avi, flv, mpg, webm, wmv, 3gpp; size and 1 h limits), keyframes are sampled at scene changes
 * (capped at EXTRACT_VIDEO_MAX_FRAMES), the soundtrack (if any) is transcribed, and the vision
 * model answers the prompt from both. 100 + 10 per started second.
 */
import { join } from 'node:path';
import { InputError, MB, type RunContext, type Static } from '../../core/sdk.js';
import { EXTRACT_BASE_CREDITS, type extractVideo } from '../../core/catalogue.js';
import { answer } from './answer.js';
import { clock, transcribeTrack } from './audio.js';
import { loadInputToFile } from '../../core/sdk.js';
import { lane, report } from './lane.js';
import { VIDEO_FORMATS, human, keyframes, mediaInput, probe } from './media.js';
import { withScratch } from '../../core/sdk.js';

type Input = Static<typeof extractVideo.input>;

/** Runs one extract-video call. */
export async function extractVideoData(input: Input, ctx: RunContext<any, any>) {
  const l = lane(ctx);
  return withScratch('extract-video', async (dir) => {
    const file = join(dir, 'input');
    // Streamed to the scratch file as it arrives (a URL of up to EXTRACT_VIDEO_MAX_MB is never held in memory).
    await loadInputToFile(ctx.engines, input.inputMethod, input.video, 'video', l.settings.videoMaxMb * MB, ctx.signal, file);
    const p = await probe(l.tools, file, 'video');
    if (!p.video || !VIDEO_FORMATS.includes(p.format)) throw new InputError('Unsupported video format. Supported formats: mp4, mpeg, mov, avi, flv, mpg, webm, wmv, 3gpp.');
    if (!(p.duration > 0)) throw new InputError('The video has no measurable duration.');
    if (p.duration > l.settings.videoMaxSeconds) throw new InputError(`The video is longer than the ${human(l.settings.videoMaxSeconds)} limit.`);
    const media = mediaInput(file, p, 'video');
    const seconds = Math.ceil(p.duration);
    // Duration probed: hold its price before the keyframes and the soundtrack are worked on.
    await ctx.reserveFor({ seconds });
    const [frames, transcript] = await Promise.all([
      keyframes(l.tools, media, dir, p.duration, l.settings.videoMaxFrames),
      p.audio ? transcribeTrack(l, media, dir, 'video') : Promise.resolve(''),
    ]);
    const images = frames.map((f) => ({ url: `data:image/jpeg;base64,${f.jpeg.toString('base64')}`, caption: `Frame at ${clock(f.at)}:` }));
    const material = `Duration: ${clock(p.duration)}. ${frames.length} keyframes follow.\n\n=== Soundtrack transcript ===\n${transcript || '(no soundtrack)'}`;
    const a = await answer(l.model, { prompt: input.prompt, material, kind: 'video (keyframes and soundtrack transcript)', images, json: input.jsonMode === true }, l.settings);
    ctx.usage.add('seconds', seconds);
    report(l, a, { format: p.format, codecs: { video: p.video, audio: p.audio }, frames: frames.map((f) => f.at) });
    return { results: a.results, prompt: input.prompt, videoDuration: Math.round(p.duration * 1000) / 1000, creditUsage: EXTRACT_BASE_CREDITS + 10 * seconds };
  });
}
