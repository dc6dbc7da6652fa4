/**
 * Video-site, short-video-site and professional-network jobs, kept on the direct lane
 * (spec §4.1–4.3, §9.1). Declared here so their v1 routes exist and answer `Service not
 * configured` until a provider plugin serves them.
 */
import { Type, defineCapability, flat } from '../../core/sdk.js';
import { AnyObject } from './common.js';

const legacy = (id: string, title: string, summary: string, tags: string[], input: Parameters<typeof Type.Object>[0], credits: number, messages?: Record<string, string>, validate?: (i: any) => string | undefined) =>
  defineCapability({ id, title, summary, tags, visibility: 'legacy', input: Type.Object(input), output: AnyObject, cost: flat(credits), messages, validate });

const UrlReq = (d: string) => Type.String({ description: d, minLength: 1 });
const urlMessage = { url: "'url' parameter is required and must be a non-empty string." };

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
  legacy('clipsite_video_comments', 'Short-video comments', 'Comments of a short video, paged.', ['clipsite', 'comments'], {
    url: UrlReq('Full clipsite video URL.'),
    cursor: Type.Optional(Type.Number({ description: "Previous response's cursor." })),
    count: Type.Optional(Type.Number({ description: 'Comments per request.' })),
  }, 10, urlMessage),
  legacy('clipsite_user_following', 'Short-video following list', 'Accounts a user follows, paged.', ['clipsite', 'following'], {
    handle: UrlReq('Username without @.'),
    minTime: Type.Optional(Type.Number({ description: 'Cursor from the previous response.' })),
    count: Type.Optional(Type.Number({ description: 'Entries per request.' })),
  }, 10, { handle: "'handle' parameter is required and must be a non-empty string." }),
  legacy('clipsite_transcript', 'Short-video transcript', 'WebVTT transcript of a short video.', ['clipsite', 'transcript'], {
    videoUrl: UrlReq('Video URL.'),
    preferredLanguage: Type.Optional(Type.String({ description: 'ISO 639-1 code (default en).', minLength: 2, maxLength: 2 })),
  }, 10, { videoUrl: 'videoUrl parameter is required' }),
  legacy('bizsite_company', 'Company page', 'Public company data from a professional-network company URL.', ['bizsite', 'company'], {
    url: UrlReq('Company page URL containing /company/.'),
  }, 10, urlMessage),
];
