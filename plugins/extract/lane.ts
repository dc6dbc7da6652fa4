/**
 * What every extract handler starts from: its settings, the model client's dependencies, the
 * tool dependencies, and the meta it reports (model, token usage, parts read, what was dropped).
 */
import type { RunContext } from '../../core/sdk.js';
import type { Answer } from './answer.js';
import type { Settings } from './config.js';
import type { ToolDeps } from './media.js';
import type { ModelDeps } from './model.js';
import { type Gate } from '../../core/sdk.js';

/** Plugin state built at setup. */
export interface State {
  /** Model requests at once (MODEL_MAX_CONCURRENCY). */
  modelGate: Gate;
  /** ffmpeg/ffprobe/tesseract processes at once (EXTRACT_MAX_PROCESSES), served to keys in turn. */
  toolGate: Gate;
}

/** One call's working set. */
export interface Lane {
  ctx: RunContext<State>;
  settings: Settings;
  model: ModelDeps;
  tools: ToolDeps;
}

/** Builds the working set of a call. */
export function lane(ctx: RunContext<any, any>): Lane {
  const settings = ctx.config as unknown as Settings;
  const state = ctx.state as State;
  return {
    ctx,
    settings,
    model: {
      ctx,
      gate: state.modelGate,
      names: { text: settings.model, vision: settings.visionModel || settings.model, transcribe: settings.transcribeModel },
      tokens: { prompt_tokens: 0, completion_tokens: 0 },
    },
    tools: { gate: state.toolGate, signal: ctx.signal, timeoutMs: settings.toolTimeoutMs, tools: ctx.engines.tools, caller: ctx.caller },
  };
}

/** Reports the model's usage and the reading of the material in `meta.native` (issue 15). */
export function report(l: Lane, a: Answer, extra: Record<string, unknown> = {}): void {
  l.ctx.setNative({
    model: l.model.names,
    usage: l.model.tokens,
    parts: a.chunks,
    ...(a.droppedChars > 0 ? { dropped: { characters: a.droppedChars, reason: `the material needed more than MODEL_MAX_CHUNKS (${l.settings.maxChunks}) parts of MODEL_CONTEXT_TOKENS (${l.settings.contextTokens})` } } : {}),
    ...extra,
  });
}
