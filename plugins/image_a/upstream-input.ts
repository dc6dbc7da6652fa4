/**
 * Our model input → the upstream model's input (spec §4.7 → contracts §9 model schemas). The
 * spec's defaults are sent explicitly, because upstream defaults drift between versions
 * (contracts §9), and safety checking stays on unless the caller turns it off (issue 16).
 */
import { Value } from '@sinclair/typebox/value';
import { type RunContext } from '../../core/sdk.js';
import { IMAGE_INPUTS, type ImageModel } from '../../core/catalogue.js';
import { inlineImage } from './media.js';

/**
 * Fields the spec lists for a model that its upstream model does not take (flux-1.1-pro has no
 * steps, guidance or interval; the API rejects unknown fields with a 422): accepted, not sent.
 */
const NOT_UPSTREAM: Partial<Record<ImageModel, string[]>> = {
  'img-pro-v1.1': ['steps', 'guidance', 'interval'],
};

/** Fields holding a caller's image URL, per model. */
const IMAGE_FIELDS: Partial<Record<ImageModel, string>> = {
  'img-dev': 'image',
  'img-edit-pro': 'input_image',
};

/** Safety settings the upstream model gets when the caller's model has no such field (issue 16). */
const SAFETY: Partial<Record<ImageModel, Record<string, unknown>>> = {
  // flux-kontext-pro: 2 is its documented default and the most allowed with an input image.
  'img-edit-pro': { safety_tolerance: 2 },
};

/** The `input` object sent upstream for `model` (already validated against its schema). */
export async function upstreamInput(ctx: RunContext<unknown>, model: ImageModel, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out = Value.Default(IMAGE_INPUTS[model], structuredClone(input)) as Record<string, unknown>;
  for (const field of NOT_UPSTREAM[model] ?? []) delete out[field];
  Object.assign(out, SAFETY[model]);
  const field = IMAGE_FIELDS[model];
  if (field && typeof out[field] === 'string') out[field] = await inlineImage(ctx, field, out[field] as string);
  return out;
}
