/**
 * video_trim (issue 28): a service-managed provider of `trim_video`, the original service's
 * `POST /api/v1/trim-video`. The video is read by URL (SSRF guard) or base64, cut with ffmpeg on
 * this machine under a process gate, and the cut stored behind a 24-hour signed link.
 */
import { MB, defineEndpoint, definePlugin, implement, loadInput, withScratch, Gate, type RunContext, type Static } from '../../core/sdk.js';
import { timestampSeconds, trimMinutes, trimVideo } from '../../core/catalogue.js';
import { cutVideo } from './cut.js';

const config = {
  maxMb: { env: 'VIDEO_TRIM_MAX_MB', type: 'number', min: 1, description: 'Largest accepted video (and largest cut handed out), in MB.', default: 200 },
  maxProcesses: { env: 'VIDEO_TRIM_MAX_PROCESSES', type: 'integer', min: 1, max: 32, description: 'ffmpeg/ffprobe processes the plugin runs at once on this instance.', default: 2 },
} as const;

interface State {
  gate: Gate;
  maxBytes: number;
}

// A long re-encode is bounded by the cut's own cap (4 h); this only stops a runaway process.
const TIMEOUT_MS = 20 * 60 * 1000;
const RETENTION_MS = 24 * 60 * 60 * 1000;

async function trim(input: Static<typeof trimVideo.input>, ctx: RunContext<State>) {
  const { gate, maxBytes } = ctx.state;
  const start = timestampSeconds(input.startTimestamp);
  const end = timestampSeconds(input.endTimestamp);
  const cut = await withScratch('video-trim', async (dir) => {
    // A video by URL is written into the scratch folder as it arrives, never held here (issue 24 finding 6).
    const loaded = await loadInput(ctx.engines, input.inputMethod ?? 'url', input.videoUrl, 'videoUrl', maxBytes, ctx.signal, dir);
    return cutVideo({ gate, signal: ctx.signal, timeoutMs: TIMEOUT_MS, maxOutputBytes: maxBytes, tools: ctx.engines.tools, caller: ctx.caller }, dir, loaded, start, end);
  });
  const stored = await ctx.engines.files.put(cut.data, { contentType: cut.contentType, extension: cut.extension, retentionMs: RETENTION_MS });
  ctx.usage.add('minutes', trimMinutes(input));
  ctx.log.info({ mode: cut.mode, bytes: cut.data.byteLength }, 'video trimmed');
  return { url: stored.url, mode: cut.mode, duration: cut.duration };
}

const endpoint = defineEndpoint({
  operation: 'trim',
  title: trimVideo.title,
  summary: trimVideo.summary,
  visibility: 'legacy',
  input: trimVideo.input,
  output: trimVideo.output!,
  cost: trimVideo.cost,
  messages: trimVideo.messages,
  validate: trimVideo.validate,
  timeoutMs: TIMEOUT_MS,
  perKeyConcurrency: 2,
  run: trim,
});

export default definePlugin<State, typeof config>({
  id: 'video_trim',
  apiVersion: 1,
  title: 'Video trim',
  summary: 'Cut a video between two timestamps with ffmpeg on this machine: stream copy on keyframes, re-encoded otherwise.',
  tags: ['video', 'trim', 'ffmpeg', 'managed'],
  managed: true,
  config,
  setup: ({ config: c }) => ({ gate: new Gate(c.maxProcesses), maxBytes: c.maxMb * MB }),
  endpoints: [endpoint],
  implements: [implement(trimVideo, endpoint)],
});
