/**
 * image_a (contracts §9, a Replicate-style predictions API): the six image models of spec §4.7.
 * Serves `generate_ai_image` (the v1 route `POST /api/v1/generate-ai-image`); outputs are kept in
 * our file store and answered as our own signed URLs, billed per image returned (spec §8.1).
 */
import { OperationFailedError, InputError, defineEndpoint, definePlugin, implement, invalidStructure } from '../../core/sdk.js';
import { IMAGE_PRICES, generateAiImage, imageModelId, maxImages, type ImageModel } from '../../core/catalogue.js';
import { runPrediction } from './client.js';
import { storeOutputs } from './media.js';
import { MODEL_SETTING, config, parseModelRef, type ModelRef, type Prediction } from './schemas.js';
import { upstreamInput } from './upstream-input.js';

/** What `setup` keeps: each model's parsed upstream reference. */
interface State {
  models: Record<ImageModel, ModelRef>;
}

/** A failure reason that names the safety checker: the caller's prompt or image, so a 400 (issue 16). */
const SAFETY_REASON = /nsfw|safety|sensitive|flagged|moderation|inappropriate|E005/i;

/** The output URLs of a finished prediction (some models answer one URL, others a list). */
function outputUrls(ctx: Parameters<typeof runPrediction>[0], p: Prediction): string[] {
  const out = p.output;
  const urls = typeof out === 'string' ? [out] : Array.isArray(out) ? out : out === null || out === undefined ? [] : undefined;
  if (!urls || urls.some((u) => typeof u !== 'string')) throw invalidStructure(ctx, 'output is not a URL or a list of URLs');
  return urls as string[];
}

/** A prediction that ended without images, as the spec's error (spec §4.7: 400 or 500 `Failed to generate image: …`). */
function failure(p: Prediction): Error {
  if (p.status === 'canceled' || p.status === 'aborted') return new OperationFailedError('Failed to generate image: the prediction was canceled.');
  const reason = (typeof p.error === 'string' && p.error.trim() ? p.error.trim().split('\n')[0]! : 'the prediction failed').slice(0, 300);
  return SAFETY_REASON.test(reason) ? new InputError(`Failed to generate image: ${reason}`) : new OperationFailedError(`Failed to generate image: ${reason}`);
}

const generate = defineEndpoint({
  operation: 'generate',
  title: 'image_a generate',
  summary: 'Run one of the six image models and store its images here.',
  tags: ['image', 'ai', 'generation'],
  visibility: 'legacy',
  input: generateAiImage.input,
  output: generateAiImage.output!,
  cost: generateAiImage.cost,
  validate: generateAiImage.validate,
  // Our deadline (IMAGE_A_DEADLINE_MS, at most 600 s) ends a generation first and cancels it
  // upstream; this is the executor's backstop, with time left to download the outputs.
  timeoutMs: 720_000,
  async run(body, ctx) {
    const state = ctx.state as State;
    // The original service's model names are aliases of ours (issue 16).
    const model = imageModelId(body.model);
    if (!model) throw new InputError(`Invalid input: 'model' must be one of the models of spec §4.7.`);
    const input = await upstreamInput(ctx, model, body.input as Record<string, unknown>);
    const p = await runPrediction(ctx, state.models[model], input);
    ctx.setNative({ id: p.id, model: p.model, version: p.version, status: p.status, metrics: p.metrics, created_at: p.created_at, completed_at: p.completed_at });
    if (p.status !== 'succeeded') throw failure(p);
    // More images than asked for are not ours to deliver (nor priced by the reservation).
    const urls = outputUrls(ctx, p).slice(0, maxImages(model, body.input as { num_outputs?: unknown }));
    if (urls.length === 0) throw new OperationFailedError('Failed to generate image: the model returned no image.');
    const files = await storeOutputs(ctx, urls, body.permanent === true);
    // Charged per image actually returned (spec §8.1); the reservation was for num_outputs.
    ctx.usage.add('images', files.length);
    return {
      images: files.map((f) => ({ url: f.url })),
      prompt: String((body.input as { prompt?: unknown }).prompt ?? ''),
      creditUsage: IMAGE_PRICES[model] * files.length,
      model: body.model,
    };
  },
});

export default definePlugin({
  id: 'image_a',
  apiVersion: 1,
  title: 'image_a (Replicate-compatible predictions API)',
  summary: 'AI image generation with six hosted models; images are stored here behind signed URLs.',
  tags: ['image', 'ai', 'generation', 'provider'],
  config,
  setup({ config: c }) {
    const models = {} as Record<ImageModel, ModelRef>;
    const bad: string[] = [];
    for (const [model, setting] of Object.entries(MODEL_SETTING) as [ImageModel, keyof typeof config][]) {
      const ref = parseModelRef(String(c[setting]));
      if (ref) models[model] = ref;
      else bad.push(`${(config[setting] as { env?: string }).env ?? setting} must be owner/name or owner/name:<version> (got '${String(c[setting]).slice(0, 80)}')`);
    }
    if (bad.length) throw new Error(bad.join('; '));
    return { models } satisfies State;
  },
  endpoints: [generate],
  implements: [implement(generateAiImage, generate)],
});
