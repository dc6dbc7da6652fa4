/** AI image generation, kept on the direct lane (spec §4.7, §8.1). */
import { Type, defineCapability, perUnit } from '../sdk-base.js';

/** Credits per image per model (spec §8.1; img-pro-v1.1 uses the higher of the two conflicting figures). */
export const IMAGE_PRICES: Record<string, number> = {
  'img-fast': 30,
  'img-dev': 150,
  'img-pro': 300,
  'img-pro-v1.1': 500,
  'img-edit-pro': 200,
  'img-design': 200,
};

export const generateAiImage = defineCapability({
  id: 'generate_ai_image',
  title: 'Generate AI images',
  summary: 'Generate images from a prompt with one of the supported models.',
  tags: ['image', 'ai', 'generation'],
  visibility: 'legacy',
  input: Type.Object({
    model: Type.Union(Object.keys(IMAGE_PRICES).map((m) => Type.Literal(m)), { description: 'Model to use.' }),
    input: Type.Object({ prompt: Type.String({ description: 'What to draw.', minLength: 1 }) }, { additionalProperties: true, description: 'Model input (spec §4.7).' }),
  }),
  output: Type.Object({}, { additionalProperties: true }),
  cost: perUnit({
    unit: 'images',
    credits: (i: any) => IMAGE_PRICES[i.model] ?? 0,
    max: (i: any) => Math.min(4, Math.max(1, Number(i.input?.num_outputs ?? 1) || 1)),
    note: 'per image; price depends on the model',
  }),
});

export default [generateAiImage];
