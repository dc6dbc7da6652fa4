/**
 * The OpenAI-compatible model client (issue 15 "The model"): chat completions with text and
 * image parts and `response_format` (JSON mode, JSON Schema), and `audio/transcriptions`, as
 * served by OpenAI, Gemini's compatible endpoint, vLLM, llama.cpp server, Ollama and LM Studio.
 * Every call goes through `providerRequest` (MODEL_BASE_URL, Bearer MODEL_API_KEY, the standard
 * fault mapping: 401/403 → 500, 429 → 503, 5xx/timeouts → 502) and a gate of
 * MODEL_MAX_CONCURRENCY calls at once.
 */
import { invalidStructure, providerRequest, type RunContext } from '../../core/sdk.js';
import { type Gate } from '../../core/sdk.js';

/** A chat message part (OpenAI content parts). */
export type Part = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: 'low' | 'high' | 'auto' } };

/** One chat message. */
export interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string | Part[];
}

/** `response_format` of a chat call. */
export type ResponseFormat = { type: 'json_object' } | { type: 'json_schema'; json_schema: { name: string; schema: unknown; strict?: boolean } };

/** Token counts as the model reported them. */
export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** What the lane's handlers need of the plugin: settings, the gate, the context. */
export interface ModelDeps {
  ctx: RunContext<any, any>;
  gate: Gate;
  /** Model names (MODEL_NAME, MODEL_VISION_NAME defaulting to it, MODEL_TRANSCRIBE_NAME). */
  names: { text: string; vision: string; transcribe: string };
  /** Sums token usage over the call's model requests (reported as units and in meta). */
  tokens: TokenUsage;
}

const SERVICE = 'model';

/** Adds a reply's reported usage to the call's totals and the usage recorder. */
function count(deps: ModelDeps, usage: unknown): void {
  const u = usage as Partial<TokenUsage> | undefined;
  const p = Number(u?.prompt_tokens) || 0;
  const c = Number(u?.completion_tokens) || 0;
  deps.tokens.prompt_tokens += p;
  deps.tokens.completion_tokens += c;
  deps.ctx.usage.add('model_prompt_tokens', p);
  deps.ctx.usage.add('model_completion_tokens', c);
}

/** One chat completion; returns the assistant's text. */
export async function chat(deps: ModelDeps, opts: { messages: Message[]; vision?: boolean; format?: ResponseFormat }): Promise<string> {
  const { ctx } = deps;
  const { data } = await deps.gate.run(
    () =>
      providerRequest<{ choices?: { message?: { content?: unknown } }[]; usage?: unknown }>(ctx, {
        path: '/chat/completions',
        json: { model: opts.vision ? deps.names.vision : deps.names.text, messages: opts.messages, temperature: 0, response_format: opts.format },
        service: SERVICE,
        maxBytes: 16 * 1024 * 1024,
      }),
    ctx.signal,
  );
  count(deps, data?.usage);
  const content = data?.choices?.[0]?.message?.content;
  if (typeof content === 'string') return content;
  // Some servers answer content as an array of text parts.
  if (Array.isArray(content)) return content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('');
  throw invalidStructure(ctx, 'chat completion without choices[0].message.content', SERVICE);
}

/** Speech to text of one audio file (`audio/transcriptions`, multipart). */
export async function transcribe(deps: ModelDeps, audio: Uint8Array, filename: string, mediaType: string): Promise<string> {
  const { ctx } = deps;
  const form = new FormData();
  form.set('model', deps.names.transcribe);
  form.set('response_format', 'json');
  form.set('file', new Blob([new Uint8Array(audio)], { type: mediaType }), filename);
  // Response serialises FormData with a boundary, as every HTTP client does.
  const encoded = new Response(form);
  const body = new Uint8Array(await encoded.arrayBuffer());
  const { data } = await deps.gate.run(
    () =>
      providerRequest<{ text?: unknown }>(ctx, {
        path: '/audio/transcriptions',
        method: 'POST',
        body,
        headers: { 'content-type': encoded.headers.get('content-type')! },
        service: SERVICE,
      }),
    ctx.signal,
  );
  if (typeof data?.text !== 'string') throw invalidStructure(ctx, 'transcription without text', SERVICE);
  return data.text.trim();
}
