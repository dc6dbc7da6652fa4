/**
 * A loopback fake of the OpenAI-compatible API the extract lane speaks (issue 15 "Tests"):
 * `POST /chat/completions` with text and image parts and `response_format` (json_object,
 * json_schema), `POST /audio/transcriptions` (multipart), Bearer auth, and OpenAI's error bodies
 * for 401, 429 (with Retry-After) and 5xx. Answers are deterministic and say what the model was
 * given, so tests can check what reached it; `replies` forces the next chat answers (non-JSON).
 * Built on the fake kit; OpenAI's "no credits" is its 429 `insufficient_quota`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeUpstream, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';

/** One chat request as the fake received it. */
export interface ChatSeen {
  model: string;
  text: string;
  images: string[];
  format?: { type: string; json_schema?: { schema?: any } };
}

interface State {
  chats: ChatSeen[];
  /** Transcription requests: model and seconds of audio received (measured with ffprobe). */
  transcriptions: { model: string; seconds: number; bytes: number }[];
  /** Contents of the next chat answers, used in order before the default answer. */
  replies: string[];
}

/** A running fake. */
export type ModelFake = FakeUpstream<State>;
type Route = FakeRoute<State>;

const openAiError = (message: string, type: string, code: string | null) => ({ error: { message, type, param: null, code } });

/** A value of the schema's type, for json_schema answers. */
function sample(schema: any): unknown {
  switch (schema?.type) {
    case 'string':
      return 'sample';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(v)]));
    default:
      return null;
  }
}

/** Seconds of audio in `bytes` (ffprobe on a temporary file: through a pipe an MP3 has no duration); 0 when unreadable. */
function seconds(bytes: Buffer): number {
  const dir = mkdtempSync(join(tmpdir(), 'model-fake-'));
  try {
    writeFileSync(join(dir, 'audio'), bytes);
    const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', join(dir, 'audio')]).toString();
    return Number(out.trim()) || 0;
  } catch {
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function formOf(contentType: string | undefined, raw: Buffer): Promise<FormData | undefined> {
  try {
    return await new Request('http://fake/', { method: 'POST', headers: { 'content-type': String(contentType) }, body: new Uint8Array(raw) }).formData();
  } catch {
    return undefined;
  }
}

const chat: Route = ({ body: json }, fake) => {
  if (!json || typeof json.model !== 'string' || !Array.isArray(json.messages)) return { status: 400, json: openAiError("'model' and 'messages' are required.", 'invalid_request_error', null) };
  const parts = json.messages.flatMap((m: any) => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content));
  const text = parts.filter((p: any) => p.type === 'text').map((p: any) => p.text).join('\n');
  const images = parts.filter((p: any) => p.type === 'image_url').map((p: any) => String(p.image_url?.url));
  if (images.some((u: string) => !/^data:image\/(png|jpeg|webp|gif);base64,/.test(u))) return { status: 400, json: openAiError('Invalid image.', 'invalid_request_error', 'invalid_image_format') };
  fake.chats.push({ model: json.model, text, images, format: json.response_format });
  const fmt = json.response_format;
  const content =
    fake.replies.shift() ??
    (fmt?.type === 'json_schema'
      ? JSON.stringify(sample(fmt.json_schema?.schema ?? { type: 'object' }))
      : fmt?.type === 'json_object'
        ? JSON.stringify({ images: images.length, characters: text.length })
        : `Model saw ${images.length} image(s) and ${text.length} characters.`);
  const usage = { prompt_tokens: Math.ceil(text.length / 4) + images.length * 85, completion_tokens: Math.ceil(content.length / 4), total_tokens: 0 };
  return { json: { id: `chatcmpl-${fake.chats.length}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: json.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage } };
};

const transcription: Route = async ({ headers, raw }, fake) => {
  const form = await formOf(headers['content-type'], raw);
  const file = form?.get('file');
  const model = form?.get('model');
  if (!form || !(file instanceof Blob) || typeof model !== 'string') return { status: 400, json: openAiError("'file' and 'model' are required.", 'invalid_request_error', null) };
  const bytes = Buffer.from(await file.arrayBuffer());
  const s = seconds(bytes);
  if (s === 0) return { status: 400, json: openAiError('Audio file might be corrupted or unsupported.', 'invalid_request_error', 'invalid_value') };
  fake.transcriptions.push({ model, seconds: s, bytes: bytes.length });
  return { json: { text: `Transcript of ${s.toFixed(1)} seconds.` } };
};

/** Starts the fake on 127.0.0.1 at a free port. */
export function startFake(opts: { apiKey?: string } = {}): Promise<ModelFake> {
  return fakeUpstream({
    apiKey: opts.apiKey ?? 'sk-model-test',
    error: (status, message) => openAiError(message, status === 404 || status === 400 ? 'invalid_request_error' : 'server_error', null),
    unauthorized: { status: 401, json: openAiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key') },
    rateLimited: { status: 429, json: openAiError('Rate limit reached for requests.', 'requests', 'rate_limit_exceeded'), headers: { 'retry-after': '1' } },
    outOfCredits: { status: 429, json: openAiError('You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota', 'insufficient_quota') },
    state: { chats: [], transcriptions: [], replies: [] } as State,
    env: ({ url, apiKey }) => ({ MODEL_BASE_URL: `${url}/v1`, MODEL_API_KEY: apiKey }),
    routes: { 'POST /v1/chat/completions': chat, 'POST /v1/audio/transcriptions': transcription },
  });
}
