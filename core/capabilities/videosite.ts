/** Video-site jobs kept on the direct lane (spec §4.1, §9.1): channel, video, comments. */
import { Type } from '../sdk-base.js';
import { legacy, UrlReq, urlMessage } from './legacy.js';

export default [
  legacy('videosite_channel', 'Video-site channel', 'Channel details by id, handle or URL.', ['videosite', 'channel'], {
    channelId: Type.Optional(Type.String({ description: 'Channel ID.' })),
    handle: Type.Optional(Type.String({ description: 'Handle beginning with @.' })),
    url: Type.Optional(Type.String({ description: 'Full channel URL.' })),
  }, 10, undefined, (i) => (i.channelId || i.handle || i.url ? undefined : "At least one parameter is required: 'channelId', 'handle', or 'url'")),
  legacy('videosite_video', 'Video-site video', 'Video details, optionally with its transcript.', ['videosite', 'video'], {
    url: UrlReq('Video or short URL.'),
    get_transcript: Type.Optional(Type.Boolean({ description: 'Include the transcript (default false).' })),
  }, 10, urlMessage),
  legacy('videosite_video_comments', 'Video-site comments', 'Comments of a video, paged.', ['videosite', 'comments'], {
    url: UrlReq('Video URL.'),
    continuationToken: Type.Optional(Type.String({ description: 'From a previous response.' })),
    order: Type.Optional(Type.Union([Type.Literal('top'), Type.Literal('newest')], { description: 'Order (default top).' })),
  }, 10, urlMessage),
];
