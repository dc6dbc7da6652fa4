/**
 * Video-site search through `/search`: the filters are the site's own `sp` parameter (a small
 * protobuf: field 1 sort, field 2 { 1 upload date, 2 result type }), the results split into
 * videos, Shorts, channels and playlists, paged with the site's continuation token.
 */
import { InputError, invalidStructure, type RunContext } from '../../core/sdk.js';
import type { VideositeSearchInput } from '../../core/catalogue.js';
import { channelsIn, playlistsIn, videosIn, type VideoSummary } from './items.js';
import { SERVICE, innertube, type NativeState } from './session.js';
import { continuationOf } from './text.js';

const UPLOAD = { today: 2, this_week: 3, this_month: 4, this_year: 5 } as const;
const TYPE = { videos: 1, channels: 2, playlists: 3, shorts: 9 } as const;

/** The `params` of a search with these filters, or undefined for none. */
export function searchParams(i: Pick<VideositeSearchInput, 'uploadDate' | 'sortBy' | 'filter'>): string | undefined {
  const filters = [...(i.uploadDate ? [8, UPLOAD[i.uploadDate as keyof typeof UPLOAD]] : []), ...(i.filter ? [16, TYPE[i.filter as keyof typeof TYPE]] : [])];
  // "popular" is the site's view-count order (sort 3).
  const bytes = [...(i.sortBy === 'popular' ? [8, 3] : []), ...(filters.length ? [18, filters.length, ...filters] : [])];
  return bytes.length ? Buffer.from(bytes).toString('base64') : undefined;
}

/** Search results in the four groups of the spec's response. */
export interface SearchResult {
  videos: VideoSummary[];
  shorts: VideoSummary[];
  channels: Record<string, unknown>[];
  playlists: Record<string, unknown>[];
  continuationToken: string | null;
}

/** One page of search results. */
export async function search(ctx: RunContext<NativeState>, i: VideositeSearchInput): Promise<SearchResult> {
  const payload = i.continuationToken ? { continuation: i.continuationToken } : { query: i.query, ...(searchParams(i) ? { params: searchParams(i) } : {}) };
  const page = await innertube(ctx, '/search', payload, { on4xx: () => new InputError('Invalid continuationToken: it does not belong to a search or has expired.') });
  ctx.setNative(page);
  const root = page?.contents ?? page?.onResponseReceivedCommands;
  if (!root) throw invalidStructure(ctx, 'search: no contents', SERVICE);
  const all = videosIn(root);
  const extras = i.includeExtras === 'true';
  const strip = (v: VideoSummary) => (extras ? v : (({ description: _d, ...rest }) => rest)(v));
  return {
    videos: all.filter((v) => v.type === 'video').map(strip),
    shorts: all.filter((v) => v.type === 'short').map(strip),
    channels: channelsIn(root),
    playlists: playlistsIn(root),
    continuationToken: continuationOf(root),
  };
}
