/** Extraction capabilities (spec §4.9, §4.10): service-managed, reported as the service's own provider. */
import { Type, defineCapability, flat } from '../sdk-base.js';
import { AnyObject } from './common.js';

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

export default [extractDocument, extractImage, extractAudio, extractVideo];
