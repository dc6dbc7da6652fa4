/**
 * transcript_a (a hosted transcript API with the Supadata contract, contracts §4): video-site
 * transcripts, search and channel listings (spec §4.10 ids). It serves `get_videosite_transcript`
 * after the native provider (issue 12): a blocked or failing native call falls back to it, and its
 * answer is laid out by the same shared helpers, so it reads the same. Without
 * `TRANSCRIPT_A_API_KEY` its operations answer `Service not configured. Please contact support.`
 */
import { definePlugin, defineEndpoint, flat, implement } from '../../core/sdk.js';
import { formatTranscript, getVideositeTranscript, videoIdOf } from '../../core/catalogue.js';
import { fetchTranscript } from './client.js';
import { channelVideos, search } from './listings.js';
import { TranscriptAOutput } from './schemas.js';

const config = {
  baseUrl: { type: 'url', description: 'transcript_a API base URL (with its /v1).', default: 'https://api.supadata.ai/v1' },
  apiKey: { type: 'secret', description: 'transcript_a API key (sent as x-api-key).', required: true },
  timeoutMs: { type: 'integer', description: 'Time allowed for one upstream call, ms.', min: 1000, max: 120_000, default: 30_000 },
  generateMissing: {
    type: 'boolean',
    description: 'When a video has no captions, let the provider generate a transcript with AI (its `auto` mode, billed per minute of media by the provider); false reads existing captions only, as spec §4.1 describes.',
    default: false,
  },
  pollIntervalMs: { type: 'integer', description: 'How often a transcript job (long media being generated) is polled, ms.', min: 10, max: 60_000, default: 1000 },
} as const;

/**
 * The provider's `lang` for a spec §4.1 code: ISO 639-1 where the code is a regional or script
 * variant (`en-US` → `en`, `zh-Hans` → `zh`), `he` for the site's legacy `iw`; three-letter codes
 * (`fil`, `haw`) have no two-letter form and go as they are.
 */
export function providerLanguage(code: string | undefined): string | undefined {
  if (!code) return undefined;
  const base = code.split('-')[0]!.toLowerCase();
  return base === 'iw' ? 'he' : base;
}

const transcript = defineEndpoint({
  operation: 'videosite_transcript',
  title: 'transcript_a video transcript',
  summary: 'Transcript of a video-site video from transcript_a (spec §4.1 lines: timestamps, five segments a line by default, preferred language or the first available), with the languages available; 20 credits, none when there are no subtitles.',
  tags: ['videosite', 'transcript', 'captions'],
  input: getVideositeTranscript.input,
  output: TranscriptAOutput,
  cost: flat(20),
  messages: getVideositeTranscript.messages,
  validate: getVideositeTranscript.validate,
  // A 202 job (long media generated with generateMissing) is polled; give it time.
  timeoutMs: 300_000,
  examples: [{ title: 'Spanish transcript, no timestamps', input: { videoUrl: 'https://www.youtube.com/watch?v=GJLlxj_dtq8', preferredLanguage: 'es', includeTimestamps: false } }],
  async run(input, ctx) {
    const { id } = videoIdOf(input.videoUrl) as { id: string };
    const t = await fetchTranscript(ctx, {
      // The canonical watch URL: the provider reads any form, but one form keeps its cache warm.
      url: `https://www.youtube.com/watch?v=${id}`,
      videoId: id,
      lang: providerLanguage(input.preferredLanguage),
      // Settings arrive parsed (boolean, integer); the endpoint's context is typed loosely.
      mode: String(ctx.config.generateMissing) === 'true' ? 'auto' : 'native',
      pollMs: Number(ctx.config.pollIntervalMs) || 1000,
    });
    return { transcript: formatTranscript(t.segments, input), language: t.language, availableLanguages: t.availableLanguages };
  },
});

export default definePlugin({
  id: 'transcript_a',
  apiVersion: 1,
  title: 'transcript_a (Supadata-compatible transcript API)',
  summary: 'Hosted video transcripts (with AI generation for videos without captions when enabled), video-site search and channel listings.',
  tags: ['videosite', 'transcript', 'search', 'provider'],
  config,
  endpoints: [transcript, search, channelVideos],
  implements: [
    // After videosite_native in providerOrder; the capability's answer drops the language list.
    implement(getVideositeTranscript, transcript, { mapOutput: ({ transcript: text, language }) => ({ transcript: text, language }) }),
  ],
});
