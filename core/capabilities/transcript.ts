/** The video-site transcript capability (spec §4.1, §4.10). */
import { Type, defineCapability, flat } from '../sdk-base.js';
import { AnyObject } from './common.js';

export const getVideositeTranscript = defineCapability({
  id: 'get_videosite_transcript',
  title: 'Video transcript',
  summary: 'Transcript of a video-site video, optionally with timestamps, in a preferred language.',
  tags: ['video', 'transcript', 'captions', 'subtitles', 'videosite'],
  input: Type.Object({
    videoUrl: Type.String({ description: 'Full video URL.', minLength: 1 }),
    includeTimestamps: Type.Optional(Type.Boolean({ description: 'Prefix lines with timestamps (default true).' })),
    timestampsToCombine: Type.Optional(Type.Integer({ minimum: 1, description: 'Segments merged into one line (default 5).' })),
    preferredLanguage: Type.Optional(Type.String({ description: 'Language code (spec §4.1 list).' })),
  }),
  output: AnyObject,
  cost: flat(20),
  messages: { videoUrl: 'videoUrl parameter is required' },
});

export default [getVideositeTranscript];
