/** Short-video-site jobs kept on the direct lane (spec §4.2, §9.1): comments, following, transcript. */
import { Type } from '../sdk-base.js';
import { legacy, UrlReq, urlMessage } from './legacy.js';

export default [
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
];
