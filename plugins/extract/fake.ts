/**
 * A loopback fake of the OpenAI-compatible API the extract lane speaks (issue 15 "Tests"):
 * `POST /chat/completions` with text and image parts and `response_format` (json_object,
 * json_schema), `POST /audio/transcriptions` (multipart), Bearer auth, and OpenAI's error bodies
 * for 401, 429 (with Retry-After) and 5xx. Answers are deterministic and say what the model was
 * given, so tests can check what reached it; `replies` forces the next chat answers (non-JSON).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveLoopback } from '../../core/sdk.js';

/** The request body, and its JSON when it parses. */
async function readBody(req: IncomingMessage): Promise<{ raw: Buffer; json: any }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  try {
    return { raw, json: JSON.parse(raw.toString('utf8')) };
  } catch {
    return { raw, json: undefined };
  }
}

/** A JSON answer. */
function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** One chat request as the fake received it. */
export interface ChatSeen {
  model: string;
  text: string;
  images: string[];
  format?: { type: string; json_schema?: { schema?: any } };
}

/** A running fake. */
export interface ModelFake {
  url: string;
  apiKey: string;
  env: Record<string, string>;
  chats: ChatSeen[];
  /** Transcription requests: model and seconds of audio received (measured with ffprobe). */
  transcriptions: { model: string; seconds: number; bytes: number }[];
  /** Every status answered to the next requests of any kind, until cleared. */
  failWith: number | undefined;
  /** Contents of the next chat answers, used in order before the default answer. */
  replies: string[];
  close(): Promise<void>;
}

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

async function formOf(req: IncomingMessage, raw: Buffer): Promise<FormData | undefined> {
  try {
    return await new Request('http://fake/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: new Uint8Array(raw) }).formData();
  } catch {
    return undefined;
  }
}

/** Starts the fake on 127.0.0.1 at a free port. */
export async function startFake(opts: { apiKey?: string } = {}): Promise<ModelFake> {
  const apiKey = opts.apiKey ?? 'sk-model-test';
  const fake: ModelFake = { url: '', apiKey, env: {}, chats: [], transcriptions: [], failWith: undefined, replies: [], close: async () => undefined };
  const server = await serveLoopback(async (req, res) => {
    const { raw, json } = await readBody(req);
    const path = new URL(req.url!, 'http://fake').pathname.replace(/^\/v1/, '');
    if (req.headers.authorization !== `Bearer ${apiKey}`) return sendJson(res, 401, openAiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    if (fake.failWith === 429) return sendJson(res, 429, openAiError('Rate limit reached for requests.', 'requests', 'rate_limit_exceeded'), { 'retry-after': '1' });
    if (fake.failWith) return sendJson(res, fake.failWith, openAiError('The server had an error while processing your request.', 'server_error', null));
    if (req.method === 'POST' && path === '/chat/completions') {
      if (!json || typeof json.model !== 'string' || !Array.isArray(json.messages)) return sendJson(res, 400, openAiError("'model' and 'messages' are required.", 'invalid_request_error', null));
      const parts = json.messages.flatMap((m: any) => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content));
      const text = parts.filter((p: any) => p.type === 'text').map((p: any) => p.text).join('\n');
      const images = parts.filter((p: any) => p.type === 'image_url').map((p: any) => String(p.image_url?.url));
      if (images.some((u: string) => !/^data:image\/(png|jpeg|webp|gif);base64,/.test(u))) return sendJson(res, 400, openAiError('Invalid image.', 'invalid_request_error', 'invalid_image_format'));
      fake.chats.push({ model: json.model, text, images, format: json.response_format });
      const fmt = json.response_format;
      const content =
        fake.replies.shift() ??
        (fmt?.type === 'json_schema'
          ? JSON.stringify(sample(fmt.json_schema?.schema ?? { type: 'object' }))
          : fmt?.type === 'json_object'
            ? JSON.stringify({ images: images.length, characters: text.length })
            : `Model saw ${images.length} image(s) and ${text.length} characters.`);
      return sendJson(res, 200, {
        id: `chatcmpl-${fake.chats.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: json.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: Math.ceil(text.length / 4) + images.length * 85, completion_tokens: Math.ceil(content.length / 4), total_tokens: 0 },
      });
    }
    if (req.method === 'POST' && path === '/audio/transcriptions') {
      const form = await formOf(req, raw);
      const file = form?.get('file');
      const model = form?.get('model');
      if (!form || !(file instanceof Blob) || typeof model !== 'string') return sendJson(res, 400, openAiError("'file' and 'model' are required.", 'invalid_request_error', null));
      const bytes = Buffer.from(await file.arrayBuffer());
      const s = seconds(bytes);
      if (s === 0) return sendJson(res, 400, openAiError('Audio file might be corrupted or unsupported.', 'invalid_request_error', 'invalid_value'));
      fake.transcriptions.push({ model, seconds: s, bytes: bytes.length });
      return sendJson(res, 200, { text: `Transcript of ${s.toFixed(1)} seconds.` });
    }
    sendJson(res, 404, openAiError(`Unknown path ${path}.`, 'invalid_request_error', null));
  });
  fake.url = `${server.url}/v1`;
  fake.env = { MODEL_BASE_URL: fake.url, MODEL_API_KEY: apiKey };
  fake.close = () => server.close();
  return fake;
}
