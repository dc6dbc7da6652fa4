/**
 * image_a's settings and the upstream shapes it reads (contracts §9, a Replicate-style predictions
 * API): the prediction object, checked on every answer so a garbled one is a 502, not a crash.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Type, type Static } from '../../core/sdk.js';
import type { ImageModel } from '../../core/catalogue.js';

/** The upstream model of one of our models: a setting, so an operator can follow new versions (issue 16). */
const model = (id: ImageModel, upstream: string) =>
  ({
    env: `IMAGE_A_MODEL_${id.replace(/[.-]/g, '_').toUpperCase()}`,
    description: `Upstream model of ${id}: \`owner/name\` (official model) or \`owner/name:<version>\` (a pinned version).`,
    default: upstream,
  }) as const;

/** What image_a reads from the environment. */
export const config = {
  baseUrl: { type: 'url', description: 'image_a API base URL (a Replicate-compatible predictions API).', default: 'https://api.replicate.com/v1' },
  apiKey: { type: 'secret', description: 'image_a API token (Bearer, `r8_…`).', required: true },
  deadlineMs: { type: 'integer', min: 1000, max: 600_000, default: 120_000, description: 'How long one generation may take, in ms, before it is cancelled upstream and the call fails (default 120000).' },
  waitSeconds: { type: 'integer', min: 1, max: 60, default: 60, description: 'How long the create call holds for a result (`Prefer: wait=N`, 1–60 s) before polling starts.' },
  pollIntervalMs: { type: 'integer', min: 10, max: 10_000, default: 500, description: 'First delay between polls of an unfinished prediction, in ms; later ones back off to 10× this, at most 5 s (or the interval itself, if longer).' },
  modelImgFast: model('img-fast', 'black-forest-labs/flux-schnell'),
  modelImgDev: model('img-dev', 'black-forest-labs/flux-dev'),
  modelImgPro: model('img-pro', 'black-forest-labs/flux-pro'),
  modelImgProV11: model('img-pro-v1.1', 'black-forest-labs/flux-1.1-pro'),
  modelImgEditPro: model('img-edit-pro', 'black-forest-labs/flux-kontext-pro'),
  modelImgDesign: model('img-design', 'recraft-ai/recraft-v3'),
} as const;

/** The setting naming each model's upstream model. */
export const MODEL_SETTING: Record<ImageModel, keyof typeof config> = {
  'img-fast': 'modelImgFast',
  'img-dev': 'modelImgDev',
  'img-pro': 'modelImgPro',
  'img-pro-v1.1': 'modelImgProV11',
  'img-edit-pro': 'modelImgEditPro',
  'img-design': 'modelImgDesign',
};

/** An upstream model reference: official models by name, community ones (or pins) by version. */
export interface ModelRef {
  owner: string;
  name: string;
  version?: string;
}

/** Parses `owner/name` or `owner/name:<version>`; undefined when malformed. */
export function parseModelRef(ref: string): ModelRef | undefined {
  const m = /^([A-Za-z0-9][\w.-]*)\/([A-Za-z0-9][\w.-]*)(?::([0-9a-f]{8,128}))?$/.exec(ref.trim());
  return m ? { owner: m[1]!, name: m[2]!, ...(m[3] ? { version: m[3] } : {}) } : undefined;
}

/** Prediction statuses (contracts §9); `aborted` appears in the official client's type. */
export const TERMINAL = new Set(['succeeded', 'failed', 'canceled', 'aborted']);

/** The prediction fields image_a relies on (contracts §9 "Prediction object"); others pass through. */
export const Prediction = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    status: Type.Union(['starting', 'processing', 'succeeded', 'failed', 'canceled', 'aborted'].map((s) => Type.Literal(s))),
    output: Type.Optional(Type.Unknown()),
    error: Type.Optional(Type.Unknown()),
    urls: Type.Optional(Type.Object({ get: Type.Optional(Type.String()), cancel: Type.Optional(Type.String()) })),
    model: Type.Optional(Type.Unknown()),
    version: Type.Optional(Type.Unknown()),
    metrics: Type.Optional(Type.Unknown()),
    created_at: Type.Optional(Type.Unknown()),
    completed_at: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);

/** A prediction as the API returns it. */
export type Prediction = Static<typeof Prediction>;

/** Checks an upstream answer is a prediction. */
export const isPrediction = TypeCompiler.Compile(Prediction);
