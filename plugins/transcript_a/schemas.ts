/**
 * Inputs and outputs of transcript_a's own endpoints (contracts §4b, §4c): the provider's search
 * filters and channel listing, in its words, with every field described (house style 2). The
 * transcript endpoint uses the `get_videosite_transcript` capability's schemas instead, so it
 * answers exactly what the other transcript providers answer.
 */
import { Type, type TSchema } from '../../core/sdk.js';
import { TranscriptOutput } from '../../core/catalogue.js';

const Nullable = <T extends TSchema>(t: T, description: string) => Type.Union([t, Type.Null()], { description });
const oneOf = (values: string[], description: string) => Type.Union(values.map((v) => Type.Literal(v)), { description });

/** `transcript_a.videosite_transcript` output: the capability's plus the languages the video has. */
export const TranscriptAOutput = Type.Object({
  ...TranscriptOutput.properties,
  availableLanguages: Type.Array(Type.String({ description: 'Language code.' }), { description: 'Languages the provider has a transcript in for this video.' }),
});

/** `transcript_a.videosite_search` input (contracts §4b). */
export const SearchInput = Type.Object({
  query: Type.String({ minLength: 1, description: 'What to search for.' }),
  uploadDate: Type.Optional(oneOf(['all', 'hour', 'today', 'week', 'month', 'year'], 'Only results uploaded in this period (default all).')),
  type: Type.Optional(oneOf(['all', 'video', 'channel', 'playlist', 'movie'], 'Only this kind of result (default all).')),
  duration: Type.Optional(oneOf(['all', 'short', 'medium', 'long'], 'Video length: short under 4 min, medium 4–20, long over 20 (default all).')),
  sortBy: Type.Optional(oneOf(['relevance', 'rating', 'date', 'views'], 'Order of the results (default relevance).')),
  features: Type.Optional(
    Type.Array(oneOf(['hd', 'subtitles', 'creative-commons', '3d', 'live', '4k', '360', 'location', 'hdr', 'vr180'], 'A video feature.'), {
      maxItems: 10,
      description: 'Only videos with all of these features.',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'How many results to gather across pages (1–100); with it no nextPageToken comes back.' })),
  nextPageToken: Type.Optional(Type.String({ minLength: 1, description: 'nextPageToken of the previous answer, for the next page (other filters are then ignored).' })),
});

const SearchResult = Type.Object(
  {
    type: Type.String({ description: 'video, channel or playlist.' }),
    id: Type.String({ description: 'Video, channel or playlist ID.' }),
    url: Type.String({ description: 'Its URL on the video site.' }),
    title: Type.String({ description: 'Title (channel name for channels).' }),
    description: Nullable(Type.String(), 'Description snippet, when given.'),
    thumbnail: Nullable(Type.String(), 'Thumbnail URI, when given.'),
    duration: Nullable(Type.Integer(), 'Length in seconds (videos).'),
    viewCount: Nullable(Type.Integer(), 'Views (videos).'),
    uploadDate: Nullable(Type.String(), 'Upload date-time (ISO 8601), when given.'),
    channel: Nullable(
      Type.Object(
        { id: Type.String({ description: 'Channel ID.' }), name: Type.String({ description: 'Channel name.' }), thumbnail: Nullable(Type.String(), 'Channel avatar URI.') },
        { description: 'Channel.' },
      ),
      'Channel that published it (videos and playlists).',
    ),
    subscriberCount: Nullable(Type.Integer(), 'Subscribers (channels).'),
    videoCount: Nullable(Type.Integer(), 'Videos (channels and playlists).'),
  },
  { description: 'One search result.' },
);

/** `transcript_a.videosite_search` output. */
export const SearchOutput = Type.Object({
  query: Type.String({ description: 'The query searched.' }),
  results: Type.Array(SearchResult, { description: 'Results in the provider’s order.' }),
  totalResults: Nullable(Type.Integer(), 'Approximate number of results, when the provider says.'),
  nextPageToken: Nullable(Type.String(), 'Pass as nextPageToken for the next page; null on the last page or when limit was used.'),
});

/** `transcript_a.videosite_channel_videos` input (contracts §4c), naming the channel as our other video-site operations do. */
export const ChannelVideosInput = Type.Object({
  channelId: Type.Optional(Type.String({ description: 'Channel ID (UC…).' })),
  handle: Type.Optional(Type.String({ description: 'Handle, with or without the leading @.' })),
  url: Type.Optional(Type.String({ description: 'Channel URL (/channel/ID, /@handle, /c/name or /user/name).' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, description: 'Most IDs to return (default 30); with type all, regular videos fill it first.' })),
  type: Type.Optional(oneOf(['all', 'video', 'short', 'live'], 'Which uploads (default all).')),
});

const Ids = (d: string) => Type.Array(Type.String({ description: 'Video ID.' }), { description: d });

/** `transcript_a.videosite_channel_videos` output: IDs only, newest first (contracts §4c). */
export const ChannelVideosOutput = Type.Object({
  channelId: Type.String({ description: 'The channel as asked for (ID, @handle or URL).' }),
  videoIds: Ids('Regular videos, newest first.'),
  shortIds: Ids('Shorts, newest first.'),
  liveIds: Ids('Live streams, newest first.'),
});
