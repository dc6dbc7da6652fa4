/**
 * transcript_a's video-site search and channel listing (spec §4.10 ids `transcript_a.videosite_search`
 * and `transcript_a.videosite_channel_videos`; contracts §4b, §4c), normalised so every result
 * has the same keys (absent values are null) and a URL to open it.
 */
import { InputError, defineEndpoint, flat, invalidStructure } from '../../core/sdk.js';
import { VIDEOSITE_CHANNEL_REQUIRED, channelRefOf } from '../../core/catalogue.js';
import { SERVICE, supadataGet, type Json } from './client.js';
import { ChannelVideosInput, ChannelVideosOutput, SearchInput, SearchOutput } from './schemas.js';

const SITE = 'https://www.youtube.com';
const nstr = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const nint = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isFinite(n) ? Math.trunc(n) : null;
};

/** The URL of a search result by its kind. */
function urlOf(type: string, id: string): string {
  if (type === 'channel') return `${SITE}/channel/${encodeURIComponent(id)}`;
  if (type === 'playlist') return `${SITE}/playlist?list=${encodeURIComponent(id)}`;
  return `${SITE}/watch?v=${encodeURIComponent(id)}`;
}

/** One result of contracts §4b, every key present. */
function result(r: Json) {
  const type = nstr(r.type) ?? 'video';
  const id = String(r.id);
  const ch = r.channel && typeof r.channel === 'object' ? (r.channel as Json) : undefined;
  return {
    type,
    id,
    url: urlOf(type, id),
    title: typeof r.title === 'string' ? r.title : '',
    description: nstr(r.description),
    thumbnail: nstr(r.thumbnail),
    duration: nint(r.duration),
    viewCount: nint(r.viewCount),
    uploadDate: nstr(r.uploadDate),
    channel: ch && typeof ch.id === 'string' ? { id: ch.id, name: typeof ch.name === 'string' ? ch.name : '', thumbnail: nstr(ch.thumbnail) } : null,
    subscriberCount: nint(r.subscriberCount),
    videoCount: nint(r.videoCount),
  };
}

/** `transcript_a.videosite_search`: `GET /youtube/search` (contracts §4b). */
export const search = defineEndpoint({
  operation: 'videosite_search',
  title: 'transcript_a video-site search',
  summary: 'Search the video site through transcript_a: videos, channels and playlists with upload-date, type, duration, sort and feature filters, paged by nextPageToken.',
  tags: ['videosite', 'search', 'video'],
  input: SearchInput,
  output: SearchOutput,
  cost: flat(10),
  messages: { query: "'query' parameter is required and must be a non-empty string." },
  examples: [{ title: 'Recent videos about a topic', input: { query: 'surface go review', type: 'video', uploadDate: 'month' } }],
  async run(input, ctx) {
    const { body } = await supadataGet(ctx, {
      path: '/youtube/search',
      query: {
        query: input.query,
        uploadDate: input.uploadDate,
        type: input.type,
        duration: input.duration,
        sortBy: input.sortBy,
        // An array parameter travels comma-separated in the query string.
        features: input.features?.length ? input.features.join(',') : undefined,
        limit: input.limit,
        nextPageToken: input.nextPageToken,
      },
      notFound: `No search results for: ${input.query.slice(0, 200)}`,
    });
    ctx.setNative(body);
    if (!Array.isArray(body.results)) throw invalidStructure(ctx, 'search answer without results', SERVICE);
    const results = (body.results as unknown[]).map((r) => {
      if (!r || typeof r !== 'object' || (typeof (r as Json).id !== 'string' && typeof (r as Json).id !== 'number')) throw invalidStructure(ctx, 'search result without id', SERVICE);
      return result(r as Json);
    });
    return { query: typeof body.query === 'string' ? body.query : input.query, results, totalResults: nint(body.totalResults), nextPageToken: nstr(body.nextPageToken) };
  },
});

/** The provider's `id` for the channel a request names (ID, `@handle` or a full URL), or the 400 text. */
function channelParam(i: { channelId?: string; handle?: string; url?: string }): string {
  if (!i.channelId?.trim() && !i.handle?.trim() && !i.url?.trim()) throw new InputError(VIDEOSITE_CHANNEL_REQUIRED);
  const ref = channelRefOf(i);
  if ('error' in ref && ref.error !== undefined) throw new InputError(ref.error);
  if ('id' in ref) return ref.id;
  if ('handle' in ref) return ref.handle;
  return `${SITE}${ref.path}`;
}

const ids = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** `transcript_a.videosite_channel_videos`: `GET /youtube/channel/videos` (contracts §4c). */
export const channelVideos = defineEndpoint({
  operation: 'videosite_channel_videos',
  title: 'transcript_a video-site channel videos',
  summary: "IDs of a channel's videos, Shorts and live streams, newest first, through transcript_a (by channel ID, handle or URL).",
  tags: ['videosite', 'channel', 'videos'],
  input: ChannelVideosInput,
  output: ChannelVideosOutput,
  cost: flat(10),
  validate: (i) => (i.channelId?.trim() || i.handle?.trim() || i.url?.trim() ? channelRefOf(i).error : VIDEOSITE_CHANNEL_REQUIRED),
  examples: [{ title: 'Latest uploads of a channel', input: { handle: '@fixturelab', limit: 10 } }],
  async run(input, ctx) {
    const id = channelParam(input);
    const { body } = await supadataGet(ctx, {
      path: '/youtube/channel/videos',
      query: { id, limit: input.limit ?? 30, type: input.type ?? 'all' },
      notFound: `Channel not found: ${id}`,
    });
    ctx.setNative(body);
    if (!Array.isArray(body.videoIds) && !Array.isArray(body.shortIds) && !Array.isArray(body.liveIds)) throw invalidStructure(ctx, 'channel videos answer without ID lists', SERVICE);
    return { channelId: id, videoIds: ids(body.videoIds), shortIds: ids(body.shortIds), liveIds: ids(body.liveIds) };
  },
});
