/**
 * AI image generation, kept on the direct lane (spec §4.7, §8.1, §9.1): six models, each with its
 * own input fields, ranges, enums and defaults. The body is `{ model, input, permanent? }`; its
 * schema carries one object per model as a JSON Schema `oneOf` (what `/api/v2/details` and the
 * OpenAPI document show), and `validate` checks the body against the chosen model's object.
 *
 * Why not a TypeBox `Type.Union` as the compiled schema: a failed union yields one error with no
 * path ("expected union value"), so the 400 could not name the field (issue 16 asks it to). The
 * compiled schema therefore checks the common shape (`model` one of the names, `input` an object)
 * and the per-model check runs in `validate`, still before any credit is reserved.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Type, defineCapability, perUnit, type Static, type TSchema } from '../sdk.js';
import { RequestSource } from './common.js';

/** The model ids of spec §4.7. */
export const IMAGE_MODELS = ['img-fast', 'img-dev', 'img-pro', 'img-pro-v1.1', 'img-edit-pro', 'img-design'] as const;
/** One model id of spec §4.7. */
export type ImageModel = (typeof IMAGE_MODELS)[number];

/**
 * Credits per image (spec §8.1). img-pro-v1.1: the spec's model list says 300 and its cost notes
 * 500; the cost notes are the statement of what a call costs, so 500 is charged (issue 16).
 */
export const IMAGE_PRICES: Record<ImageModel, number> = {
  'img-fast': 30,
  'img-dev': 150,
  'img-pro': 300,
  'img-pro-v1.1': 500,
  'img-edit-pro': 200,
  'img-design': 200,
};

/** The original service's model names, accepted as aliases: its clients send them (issue 16). */
export const IMAGE_MODEL_ALIASES: Record<string, ImageModel> = {
  'FLUX.1-schnell': 'img-fast',
  'FLUX.1-dev': 'img-dev',
  'FLUX.1-pro': 'img-pro',
  'FLUX.1.1-pro': 'img-pro-v1.1',
  'FLUX.1-kontext-pro': 'img-edit-pro',
  'recraft-v3': 'img-design',
};

/** Our model id for a model id or alias; undefined for anything else. */
export function imageModelId(model: unknown): ImageModel | undefined {
  if (typeof model !== 'string') return undefined;
  return (IMAGE_MODELS as readonly string[]).includes(model) ? (model as ImageModel) : IMAGE_MODEL_ALIASES[model];
}

/** Images a model returns at most for this input (`num_outputs` exists on img-fast and img-dev). */
export function maxImages(model: ImageModel, input: { num_outputs?: unknown } | undefined): number {
  if (model !== 'img-fast' && model !== 'img-dev') return 1;
  const n = Number(input?.num_outputs ?? 1);
  return Number.isInteger(n) ? Math.min(4, Math.max(1, n)) : 1;
}

const opt = <T extends TSchema>(s: T) => Type.Optional(s);
/** Schema options without the keys left undefined (a `default: undefined` would read as a default). */
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const int = (description: string, minimum?: number, maximum?: number, dflt?: number) => opt(Type.Integer(defined({ description, minimum, maximum, default: dflt })));
const num = (description: string, minimum: number, maximum: number, dflt: number) => opt(Type.Number({ description, minimum, maximum, default: dflt }));
const bool = (description: string, dflt: boolean) => opt(Type.Boolean({ description, default: dflt }));
const choice = (values: readonly string[], description: string, dflt: string) => opt(Type.Union(values.map((v) => Type.Literal(v)), { description, default: dflt }));
const imageUrl = (description: string) => opt(Type.String({ description, pattern: '^https?://[^\\s]+$', maxLength: 4096 }));
const prompt = (maxLength: number) => Type.String({ description: `What to draw (required, 1–${maxLength} characters).`, minLength: 1, maxLength });
const side = (d: string) => opt(Type.Integer({ description: `${d} in pixels, 256–1440 and a multiple of 32; only with aspect_ratio 'custom'.`, minimum: 256, maximum: 1440, multipleOf: 32 }));

const FLUX_RATIOS = ['1:1', '16:9', '21:9', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3', '9:16', '9:21'];
const PRO_RATIOS = ['custom', '1:1', '16:9', '2:3', '3:2', '4:5', '5:4', '9:16', '3:4', '4:3'];
const EDIT_RATIOS = ['match_input_image', '1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '4:5', '5:4', '21:9', '9:21', '2:1', '1:2'];
const DESIGN_SIZES = ['1024x1024', '1365x1024', '1024x1365', '1536x1024', '1024x1536', '1820x1024', '1024x1820', '1024x2048', '2048x1024', '1434x1024', '1024x1434', '1024x1280', '1280x1024', '1024x1707', '1707x1024'];
const DESIGN_STYLES = ['any', 'realistic_image', 'digital_illustration', 'digital_illustration/pixel_art', 'digital_illustration/hand_drawn', 'digital_illustration/grain', 'digital_illustration/infantile_sketch', 'digital_illustration/2d_art_poster', 'digital_illustration/handmade_3d', 'digital_illustration/hand_drawn_outline', 'digital_illustration/engraving_color', 'digital_illustration/2d_art_poster_2', 'realistic_image/b_and_w', 'realistic_image/hard_flash', 'realistic_image/hdr', 'realistic_image/natural_light', 'realistic_image/studio_portrait', 'realistic_image/enterprise', 'realistic_image/motion_blur'];

const seed = int('Random seed, for reproducible results.');
const common = {
  output_format: choice(['webp', 'jpg', 'png'], 'Image format.', 'webp'),
  output_quality: int('Quality 0–100 (jpg and webp).', 0, 100, 80),
};
const schnellLike = {
  num_outputs: int('Images to generate, 1–4.', 1, 4, 1),
  aspect_ratio: choice(FLUX_RATIOS, 'Aspect ratio.', '1:1'),
  ...common,
  disable_safety_checker: bool('Turn the safety checker off (on by default).', false),
  go_fast: bool('Faster, fp8-quantised inference (not deterministic).', true),
  megapixels: choice(['1', '0.25'], 'Approximate megapixels of the image.', '1'),
};
const proInput = Type.Object(
  {
    prompt: prompt(10_000),
    seed,
    steps: int('Diffusion steps, 1–50.', 1, 50, 25),
    width: side('Width'),
    height: side('Height'),
    guidance: num('Prompt adherence, 2–5.', 2, 5, 3),
    interval: num('Variance of outputs, 1–4.', 1, 4, 2),
    aspect_ratio: choice(PRO_RATIOS, "Aspect ratio; 'custom' uses width and height.", '1:1'),
    ...common,
    safety_tolerance: int('Safety tolerance, 1 (strictest) to 5.', 1, 5, 2),
    prompt_upsampling: bool('Let the model rewrite the prompt for more creative output.', false),
  },
  { additionalProperties: false, description: 'Input of img-pro and img-pro-v1.1.' },
);

/** The `input` object of each model (spec §4.7), with its defaults as schema `default`s. */
export const IMAGE_INPUTS: Record<ImageModel, TSchema> = {
  'img-fast': Type.Object(
    { prompt: prompt(10_000), seed, ...schnellLike, num_inference_steps: int('Denoising steps, 1–4.', 1, 4, 4) },
    { additionalProperties: false, description: 'Input of img-fast.' },
  ),
  'img-dev': Type.Object(
    {
      prompt: prompt(10_000),
      seed,
      image: imageUrl('http(s) URL of an image to start from (image-to-image); the output follows its aspect ratio.'),
      prompt_strength: num('How far the image may move away from `image`, 0–1.', 0, 1, 0.8),
      ...schnellLike,
      num_inference_steps: int('Denoising steps, 1–50.', 1, 50, 28),
      guidance: num('Prompt adherence, 0–10.', 0, 10, 3),
    },
    { additionalProperties: false, description: 'Input of img-dev.' },
  ),
  'img-pro': proInput,
  'img-pro-v1.1': proInput,
  'img-edit-pro': Type.Object(
    {
      prompt: prompt(10_000),
      input_image: imageUrl('http(s) URL of the image to edit or use as reference (jpeg, png, gif or webp).'),
      aspect_ratio: choice(EDIT_RATIOS, 'Aspect ratio.', 'match_input_image'),
      seed,
    },
    { additionalProperties: false, description: 'Input of img-edit-pro.' },
  ),
  'img-design': Type.Object(
    {
      prompt: prompt(1000),
      size: choice(DESIGN_SIZES, 'Image size in pixels.', '1024x1024'),
      style: choice(DESIGN_STYLES, 'Style of the image.', 'any'),
    },
    { additionalProperties: false, description: 'Input of img-design.' },
  ),
};

const permanent = Type.Optional(
  Type.Boolean({ description: 'Keep the images until an administrator deletes them or the retention setting ends them, instead of 24 hours (default false).', default: false }),
);

/** One body schema per model: `model` is the id or its alias, `input` that model's fields. */
const variants = Object.fromEntries(
  IMAGE_MODELS.map((id) => {
    const names = [id, ...Object.keys(IMAGE_MODEL_ALIASES).filter((a) => IMAGE_MODEL_ALIASES[a] === id)];
    const body = Type.Object(
      {
        model: Type.Union(names.map((n) => Type.Literal(n)), { description: `${names.join(' or ')} (${IMAGE_PRICES[id]} credits per image).` }),
        input: IMAGE_INPUTS[id],
        permanent,
        // Stripped by the v1 lane before validation; listed so the documented body is complete.
        requestSource: RequestSource,
      },
      { additionalProperties: false, description: `Body for model ${id}.` },
    );
    return [id, body];
  }),
) as unknown as Record<ImageModel, TSchema>;

const checks = Object.fromEntries(IMAGE_MODELS.map((id) => [id, TypeCompiler.Compile(variants[id])])) as Record<ImageModel, TypeCheck<TSchema>>;

/** What a failed check says, in the words of the rest of the service's 400s (`core/execution/validate.ts`). */
function expected(e: ValueError): string {
  const s = e.schema as { minimum?: number; maximum?: number; multipleOf?: number; maxLength?: number; anyOf?: { const?: unknown }[] };
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.ObjectAdditionalProperties:
      return e.path.startsWith('/input/') ? 'is not an input of this model' : 'is not a field of this request';
    case ValueErrorType.Union:
      return `must be one of: ${(s.anyOf ?? []).map((o) => String(o.const)).join(', ')}`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${s.minimum}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${s.maximum}`;
    case ValueErrorType.IntegerMultipleOf:
    case ValueErrorType.NumberMultipleOf:
      return `must be a multiple of ${s.multipleOf}`;
    case ValueErrorType.Integer:
      return 'must be an integer';
    case ValueErrorType.Number:
      return 'must be a number';
    case ValueErrorType.Boolean:
      return 'must be true or false';
    case ValueErrorType.StringPattern:
      return 'must be an http(s) URL';
    case ValueErrorType.StringMinLength:
      return 'must not be empty';
    case ValueErrorType.StringMaxLength:
      return `must be at most ${s.maxLength} characters`;
    default:
      return e.message.charAt(0).toLowerCase() + e.message.slice(1);
  }
}

/** The 400 text for a body that fails its model's schema or a cross-field rule, or undefined. */
export function imageInputProblem(body: { model?: unknown; input?: unknown; permanent?: unknown }): string | undefined {
  const model = imageModelId(body.model);
  // An unknown model or a non-object input is the compiled schema's to report.
  if (!model) return undefined;
  const check = checks[model];
  if (!check.Check(body)) {
    const e = check.Errors(body).First()!;
    return `Invalid input: '${e.path.slice(1).replace(/\//g, '.')}' ${expected(e)} (model ${model}).`;
  }
  const input = body.input as { aspect_ratio?: string; width?: number; height?: number };
  if (model === 'img-pro' || model === 'img-pro-v1.1') {
    const sized = input.width !== undefined || input.height !== undefined;
    // spec §4.7 / contract §9: width and height are only used with aspect_ratio 'custom'.
    if (input.aspect_ratio === 'custom' && (input.width === undefined || input.height === undefined)) return `Invalid input: aspect_ratio 'custom' needs 'input.width' and 'input.height' (model ${model}).`;
    if (sized && input.aspect_ratio !== 'custom') return `Invalid input: 'input.width' and 'input.height' need aspect_ratio 'custom' (model ${model}).`;
  }
  return undefined;
}

const Body = Type.Object(
  {
    model: Type.Union([...IMAGE_MODELS, ...Object.keys(IMAGE_MODEL_ALIASES)].map((m) => Type.Literal(m)), { description: 'Model (spec §4.7); the original service\'s names (FLUX.1-schnell, …) are accepted as aliases.' }),
    input: Type.Object({}, { additionalProperties: true, description: "The model's input: the fields of the chosen model's schema below (spec §4.7)." }),
    permanent,
  },
  { additionalProperties: false, oneOf: IMAGE_MODELS.map((id) => variants[id]), description: 'One body per model (oneOf on `model`).' },
);

/** The body of `POST /api/v1/generate-ai-image` minus `requestSource`. */
export type GenerateAiImageInput = Static<typeof Body>;

const Output = Type.Object({
  images: Type.Array(Type.Object({ url: Type.String({ description: 'Signed download URL on this service: valid 24 hours, or until deleted with `permanent`.' }) }, { description: 'One generated image.' }), {
    description: 'The images the model returned (it may return fewer than num_outputs).',
  }),
  prompt: Type.String({ description: 'The prompt used.' }),
  creditUsage: Type.Integer({ description: 'Credits charged: the per-image cost times the images returned.' }),
  model: Type.String({ description: 'The model as named in the request.' }),
});

/** The result of an image generation (spec §4.7). */
export type GenerateAiImageOutput = Static<typeof Output>;

/** Spec §4.7: generate images from a prompt with one of six models; billed per image returned. */
export const generateAiImage = defineCapability({
  id: 'generate_ai_image',
  title: 'Generate AI images',
  summary: 'Generate images from a prompt with one of six models; the images are stored here behind signed URLs.',
  tags: ['image', 'ai', 'generation'],
  visibility: 'legacy',
  input: Body,
  output: Output,
  validate: imageInputProblem,
  cost: perUnit({
    unit: 'images',
    credits: (i: GenerateAiImageInput) => IMAGE_PRICES[imageModelId(i.model) ?? 'img-fast'],
    max: (i: GenerateAiImageInput) => maxImages(imageModelId(i.model) ?? 'img-fast', i.input),
    note: `Credits per image returned, by model: ${IMAGE_MODELS.map((m) => `${m} ${IMAGE_PRICES[m]}`).join(', ')}`,
  }),
  examples: [
    { title: 'Two fast PNG images', input: { model: 'img-fast', input: { prompt: 'a red panda reading a newspaper', num_outputs: 2, output_format: 'png' } } },
    { title: 'A pixel-art design (original model name)', input: { model: 'recraft-v3', input: { prompt: 'a lighthouse at dusk', style: 'digital_illustration/pixel_art' } } },
  ],
});

export default [generateAiImage];
