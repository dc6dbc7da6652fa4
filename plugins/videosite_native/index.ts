/**
 * videosite_native (issue 12): the video site's own data with no third-party key — channel, video,
 * comments, transcript, channel videos and Shorts, search — read from its internal JSON API the
 * way the maintained open-source clients do. It is the first provider of every video-site
 * capability (spec §4.1, §4.10); a blocked or failing call falls back along the chain.
 */
import { defineEndpoint, definePlugin, flat, implement } from '../../core/sdk.js';
import { formatTranscript, getVideositeTranscript, TranscriptOutput, videoIdOf, channelRefOf, videositeChannel, videositeChannelShorts, videositeChannelVideos, videositeSearch, videositeVideo, videositeVideoComments, type ChannelRef } from '../../core/catalogue.js';
import { readTranscript } from './captions.js';
import { getChannel, listChannel } from './channel.js';
import { getComments } from './comments.js';
import { fetchPlayer } from './player.js';
import { search } from './search.js';
import { createState, type NativeConfig, type NativeState } from './session.js';
import { getVideo } from './video.js';

const config = {
  baseUrl: { type: 'url', description: 'Where every request to the video site goes (its pages, API and caption hosts), path and query kept; point it at a replaying server in tests.', default: 'https://www.youtube.com' },
  proxyUrl: { type: 'url', description: 'HTTP proxy for requests to the video site (for servers whose address the site rate-limits); unset: direct.' },
  timeoutMs: { type: 'integer', description: 'Time allowed for one request to the video site, ms.', default: 15000, min: 1000, max: 120000 },
} as const;

/** The id of a URL the capability's validation already accepted. */
const idOf = (url: string) => videoIdOf(url) as { id: string; short: boolean };
const refOf = (i: { channelId?: string; handle?: string; url?: string }) => channelRefOf(i) as ChannelRef;
const common = { cost: flat(10) };

const channel = defineEndpoint({
  operation: 'channel', title: 'Video-site channel', summary: videositeChannel.summary, input: videositeChannel.input, output: videositeChannel.output!, validate: videositeChannel.validate, ...common,
  examples: [{ title: 'A channel by handle', input: { handle: '@fixturelab' } }],
  run: (input, ctx) => getChannel(ctx, refOf(input)),
});

const video = defineEndpoint({
  operation: 'video', title: 'Video-site video', summary: videositeVideo.summary, input: videositeVideo.input, output: videositeVideo.output!, validate: videositeVideo.validate, messages: videositeVideo.messages, ...common,
  examples: [{ title: 'A video with its transcript', input: { url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8', get_transcript: true } }],
  run: (input, ctx) => {
    const { id, short } = idOf(input.url);
    return getVideo(ctx, id, short, input.get_transcript === true);
  },
});

const comments = defineEndpoint({
  operation: 'comments', title: 'Video-site comments', summary: videositeVideoComments.summary, input: videositeVideoComments.input, output: videositeVideoComments.output!, validate: videositeVideoComments.validate, messages: videositeVideoComments.messages, ...common,
  examples: [{ title: 'Newest comments of a video', input: { url: 'https://youtu.be/xaQJbozY_Is', order: 'newest' } }],
  run: (input, ctx) => getComments(ctx, idOf(input.url).id, input.order ?? 'top', input.continuationToken),
});

const transcript = defineEndpoint({
  operation: 'transcript', title: 'Video transcript (native)', summary: 'Transcript from the caption tracks of the video (manual before auto-generated), in the preferred language or the first available.',
  tags: ['transcript', 'captions'], input: getVideositeTranscript.input, output: TranscriptOutput, validate: getVideositeTranscript.validate, messages: getVideositeTranscript.messages, cost: flat(20),
  examples: [{ title: 'German transcript, three segments per line', input: { videoUrl: 'https://www.youtube.com/watch?v=GJLlxj_dtq8', preferredLanguage: 'de', timestampsToCombine: 3 } }],
  async run(input, ctx) {
    const { id } = idOf(input.videoUrl);
    const player = await fetchPlayer(ctx, id);
    const t = await readTranscript(ctx, id, player, input.preferredLanguage);
    ctx.setNative({ videoId: id, language: t.language, kind: t.kind, segments: t.segments });
    return { transcript: formatTranscript(t.segments, input), language: t.language };
  },
});

const channelVideos = defineEndpoint({
  operation: 'channel_videos', title: 'Video-site channel videos', summary: videositeChannelVideos.summary, input: videositeChannelVideos.input, output: videositeChannelVideos.output!, validate: videositeChannelVideos.validate, ...common,
  examples: [{ title: 'Latest videos of a channel', input: { channelId: 'UCfixtureLabChannel00001' } }],
  async run(input, ctx) {
    const page = await listChannel(ctx, input.continuationToken ? { id: '' } : refOf(input), 'videos', input);
    const videos = input.includeExtras === 'true' ? page.items : page.items.map(({ description: _d, ...v }) => v);
    return { videos, continuationToken: page.continuationToken, success: true };
  },
});

const channelShorts = defineEndpoint({
  operation: 'channel_shorts', title: 'Video-site channel shorts', summary: videositeChannelShorts.summary, input: videositeChannelShorts.input, output: videositeChannelShorts.output!, validate: videositeChannelShorts.validate, ...common,
  examples: [{ title: 'Shorts of a channel', input: { handle: '@fixturelab' } }],
  async run(input, ctx) {
    const page = await listChannel(ctx, input.continuationToken ? { id: '' } : refOf(input), 'shorts', input);
    return { shorts: page.items, continuationToken: page.continuationToken };
  },
});

const searchEndpoint = defineEndpoint({
  operation: 'search', title: 'Video-site search', summary: videositeSearch.summary, input: videositeSearch.input, output: videositeSearch.output!, messages: videositeSearch.messages, ...common,
  examples: [{ title: 'Videos about a topic', input: { query: 'surface go review' } }],
  run: (input, ctx) => search(ctx, input),
});

export default definePlugin<NativeState, typeof config>({
  id: 'videosite_native',
  apiVersion: 1,
  title: 'Video site (native)',
  summary: "The video site's own data with no key: channels, videos, comments, transcripts, channel listings and search, from its internal JSON API.",
  tags: ['videosite', 'video', 'transcript', 'comments', 'channel', 'search'],
  managed: true,
  config,
  setup: ({ config: c }) => createState(c as unknown as NativeConfig),
  close: async (state) => {
    await state.proxy?.close();
  },
  endpoints: [channel, video, comments, transcript, channelVideos, channelShorts, searchEndpoint],
  implements: [
    implement(videositeChannel, channel),
    implement(videositeVideo, video),
    implement(videositeVideoComments, comments),
    implement(getVideositeTranscript, transcript),
    implement(videositeChannelVideos, channelVideos),
    implement(videositeChannelShorts, channelShorts),
    implement(videositeSearch, searchEndpoint),
  ],
});
