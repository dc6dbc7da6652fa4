/**
 * The upstream models' input schemas as contracts §9 records them (not our spec §4.7 shapes): the
 * fake refuses what the API refuses (types, enums, ranges, unknown fields; a 422 through the kit's
 * `checked`), so a mapping that sends flux-1.1-pro a field it lacks fails in tests.
 */
import { Type, type TSchema } from '../../core/sdk.js';

const o = <T extends TSchema>(s: T) => Type.Optional(s);
const int = (minimum?: number, maximum?: number) => o(Type.Integer({ ...(minimum !== undefined ? { minimum } : {}), ...(maximum !== undefined ? { maximum } : {}) }));
const num = (minimum: number, maximum: number) => o(Type.Number({ minimum, maximum }));
const enm = (values: string[]) => o(Type.Union(values.map((v) => Type.Literal(v))));
const bool = o(Type.Boolean());
/** A file input: an http(s) URL or an inline data URI. */
const uri = o(Type.String({ pattern: '^(https?:|data:)' }));
const RATIOS = ['1:1', '16:9', '21:9', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3', '9:16', '9:21'];
const PRO_RATIOS = ['custom', '1:1', '16:9', '3:2', '2:3', '4:5', '5:4', '9:16', '3:4', '4:3'];
const KONTEXT_RATIOS = ['match_input_image', '1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '4:5', '5:4', '21:9', '9:21', '2:1', '1:2'];
const side = o(Type.Integer({ minimum: 256, maximum: 1440, multipleOf: 32 }));
const fmt = { output_format: enm(['webp', 'jpg', 'png']), output_quality: int(0, 100) };
/** What flux-schnell and flux-dev share, and flux-pro and flux-1.1-pro (flux-pro adds steps, guidance, interval). */
const schnellish = { prompt: Type.String(), aspect_ratio: enm(RATIOS), num_outputs: int(1, 4), seed: int(), ...fmt, disable_safety_checker: bool, go_fast: bool, megapixels: enm(['1', '0.25']) };
const pro = { prompt: Type.String(), image_prompt: uri, aspect_ratio: enm(PRO_RATIOS), width: side, height: side, safety_tolerance: int(1, 6), seed: int(), ...fmt, prompt_upsampling: bool };

/** A model answering a list of URIs in webp unless asked otherwise; its request body refuses unknown input fields. */
const many = (props: Record<string, TSchema>) => ({ body: Type.Object({ input: Type.Object(props, { additionalProperties: false }) }), list: true, format: 'webp' });
/** A model answering one URI, in `format` unless asked otherwise. */
const one = (props: Record<string, TSchema>, format = 'webp') => ({ ...many(props), list: false, format });

/** Upstream model → its request body schema and output kind. */
export const UPSTREAM_MODELS: Record<string, ReturnType<typeof many>> = {
  'black-forest-labs/flux-schnell': many({ ...schnellish, num_inference_steps: int(1, 4) }),
  'black-forest-labs/flux-dev': many({ ...schnellish, image: uri, prompt_strength: num(0, 1), num_inference_steps: int(1, 50), guidance: num(0, 10) }),
  'black-forest-labs/flux-pro': one({ ...pro, steps: int(1, 50), guidance: num(2, 5), interval: num(1, 4) }),
  'black-forest-labs/flux-1.1-pro': one(pro),
  // kontext answers png by default and refuses webp with a 422 (contracts §9).
  'black-forest-labs/flux-kontext-pro': one({ prompt: Type.String(), input_image: uri, aspect_ratio: enm(KONTEXT_RATIOS), prompt_upsampling: bool, seed: int(), output_format: enm(['jpg', 'png']), safety_tolerance: int(0, 6) }, 'png'),
  'recraft-ai/recraft-v3': one({ prompt: Type.String({ maxLength: 1000 }), size: o(Type.String()), aspect_ratio: o(Type.String()), style: o(Type.String()) }),
};

