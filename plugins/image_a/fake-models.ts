/**
 * The upstream models' input schemas as contracts §9 records them (not our spec §4.7 shapes), for
 * the fake: types, enums, ranges and unknown fields are checked the way the API does it (a 422
 * with `invalid_fields`), so a mapping that sends flux-1.1-pro a field it lacks fails in tests.
 */
import { Type, type TSchema } from '../../core/sdk.js';
import { violations } from '../../core/testing/index.js';

const o = <T extends TSchema>(s: T) => Type.Optional(s);
const int = (minimum?: number, maximum?: number) => o(Type.Integer({ ...(minimum !== undefined ? { minimum } : {}), ...(maximum !== undefined ? { maximum } : {}) }));
const num = (minimum: number, maximum: number) => o(Type.Number({ minimum, maximum }));
const enm = (values: string[]) => o(Type.Union(values.map((v) => Type.Literal(v))));
/** A file input: an http(s) URL or an inline data URI. */
const uri = o(Type.String({ pattern: '^(https?:|data:)' }));
const RATIOS = ['1:1', '16:9', '21:9', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3', '9:16', '9:21'];
const PRO_RATIOS = ['custom', '1:1', '16:9', '3:2', '2:3', '4:5', '5:4', '9:16', '3:4', '4:3'];
const side = o(Type.Integer({ minimum: 256, maximum: 1440, multipleOf: 32 }));
const fmt = { output_format: enm(['webp', 'jpg', 'png']), output_quality: int(0, 100) };
const schnellish = { prompt: Type.String(), aspect_ratio: enm(RATIOS), num_outputs: int(1, 4), seed: int(), ...fmt, disable_safety_checker: o(Type.Boolean()), go_fast: o(Type.Boolean()), megapixels: enm(['1', '0.25']) };
const strict = (props: Record<string, TSchema>) => Type.Object(props, { additionalProperties: false });

/** Upstream model → its input schema and output kind (a list of URIs or one URI). */
export const UPSTREAM_MODELS: Record<string, { input: TSchema; list: boolean; format: string }> = {
  'black-forest-labs/flux-schnell': { input: strict({ ...schnellish, num_inference_steps: int(1, 4) }), list: true, format: 'webp' },
  'black-forest-labs/flux-dev': { input: strict({ ...schnellish, image: uri, prompt_strength: num(0, 1), num_inference_steps: int(1, 50), guidance: num(0, 10) }), list: true, format: 'webp' },
  'black-forest-labs/flux-pro': {
    input: strict({ prompt: Type.String(), image_prompt: uri, aspect_ratio: enm(PRO_RATIOS), width: side, height: side, steps: int(1, 50), guidance: num(2, 5), interval: num(1, 4), safety_tolerance: int(1, 6), seed: int(), ...fmt, prompt_upsampling: o(Type.Boolean()) }),
    list: false,
    format: 'webp',
  },
  'black-forest-labs/flux-1.1-pro': {
    input: strict({ prompt: Type.String(), image_prompt: uri, aspect_ratio: enm(PRO_RATIOS), width: side, height: side, safety_tolerance: int(1, 6), seed: int(), prompt_upsampling: o(Type.Boolean()), ...fmt }),
    list: false,
    format: 'webp',
  },
  'black-forest-labs/flux-kontext-pro': {
    input: strict({
      prompt: Type.String(),
      input_image: uri,
      aspect_ratio: enm(['match_input_image', '1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '4:5', '5:4', '21:9', '9:21', '2:1', '1:2']),
      prompt_upsampling: o(Type.Boolean()),
      seed: int(),
      // webp is rejected with 422 (contracts §9).
      output_format: enm(['jpg', 'png']),
      safety_tolerance: int(0, 6),
    }),
    list: false,
    format: 'png',
  },
  'recraft-ai/recraft-v3': { input: strict({ prompt: Type.String({ maxLength: 1000 }), size: o(Type.String()), aspect_ratio: o(Type.String()), style: o(Type.String()) }), list: false, format: 'webp' },
};

/** The API's 422 body for an input that fails its model's schema, or undefined when it passes. */
export function inputProblem(model: string, input: unknown): { detail: string; invalid_fields: { type: string; field: string; description: string }[] } | undefined {
  const fields = violations(UPSTREAM_MODELS[model]!.input, input).map((v) => ({ type: v.kind === 'additional_property' ? 'additional_property_not_allowed' : v.kind, field: `input.${v.field}`, description: `${v.field}: ${v.error.message}` }));
  // "- input.output_format: output_format must be one of …\n" (contracts §9 "Errors").
  return fields.length ? { detail: fields.map((f) => `- ${f.field}: ${f.description}\n`).join(''), invalid_fields: fields } : undefined;
}
