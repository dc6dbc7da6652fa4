/** Transcript and extraction capabilities (spec §4.1, §4.9, §4.10). */
import { Type, defineCapability, flat } from '../../core/sdk.js';
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

const extract = (id: string, what: string, input: Parameters<typeof Type.Object>[0]) =>
  defineCapability({
    id,
    title: `Extract from ${what}`,
    summary: `Extract text and structure from ${what}. Service-managed.`,
    tags: ['extract', what],
    input: Type.Object(input),
    output: AnyObject,
    cost: flat(10),
  });

export const extractDocument = extract('extract_document', 'a document', { url: Type.String({ description: 'Document URL.', minLength: 1 }) });
export const extractImage = extract('extract_image', 'an image', { url: Type.String({ description: 'Image URL.', minLength: 1 }), prompt: Type.Optional(Type.String({ description: 'What to extract.' })) });
export const extractAudio = extract('extract_audio', 'audio', {
  inputMethod: Type.Literal('url', { description: 'How the audio is given.' }),
  audio: Type.String({ description: 'Audio URL.', minLength: 1 }),
  prompt: Type.Optional(Type.String({ description: 'What to extract.' })),
});
export const extractVideo = extract('extract_video', 'video', { url: Type.String({ description: 'Video URL.', minLength: 1 }), prompt: Type.Optional(Type.String({ description: 'What to extract.' })) });

export default [getVideositeTranscript, extractDocument, extractImage, extractAudio, extractVideo];
