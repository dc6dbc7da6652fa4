/**
 * Asks the model the caller's prompt about extracted material (issue 15): material longer than
 * the model's context (MODEL_CONTEXT_TOKENS) is split on paragraph boundaries and asked part by
 * part, then the partial answers are combined — never cut silently; parts beyond
 * MODEL_MAX_CHUNKS are dropped and reported in meta. With `jsonMode` (or a schema) the answer
 * must parse as JSON: one retry, then 502.
 */
import { UpstreamError } from '../../core/sdk.js';
import { chat, type Message, type ModelDeps, type Part, type ResponseFormat } from './model.js';

/** What to ask. */
export interface Question {
  prompt: string;
  /** The extracted text (document pages, transcript, page markdown). */
  material: string;
  /** What the material is, for the instructions ("documents", "audio transcript"). */
  kind: string;
  /** Images sent with the first part (data: URLs), each with a caption. */
  images?: { url: string; caption: string }[];
  /** Parse the answer as JSON. */
  json: boolean;
  /** JSON Schema the answer must follow (extract_web). */
  schema?: Record<string, unknown>;
}

/** Limits of one question. */
export interface AnswerLimits {
  contextTokens: number;
  maxChunks: number;
}

/** The answer and what happened on the way. */
export interface Answer {
  results: unknown;
  chunks: number;
  /** Characters of material not read because of MODEL_MAX_CHUNKS. */
  droppedChars: number;
}

/** A rough token count (four characters a token), enough to size parts. */
const tokens = (s: string) => Math.ceil(s.length / 4);
/** What an image costs a vision model in tokens, roughly (a 768-px tile). */
const IMAGE_TOKENS = 800;

/** Splits text into parts of at most `size` characters, at blank lines, then lines, then anywhere. */
export function split(text: string, size: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const window = rest.slice(0, size);
    let cut = window.lastIndexOf('\n\n');
    if (cut < size / 2) cut = window.lastIndexOf('\n');
    if (cut < size / 2) cut = size;
    parts.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut);
  }
  if (rest.trim()) parts.push(rest.trim());
  return parts;
}

function instructions(q: Question): string {
  const shape = q.schema
    ? `Answer with a single JSON object that follows this JSON Schema, and nothing else:\n${JSON.stringify(q.schema)}`
    : q.json
      ? 'Answer with valid JSON only (no prose, no code fences).'
      : 'Answer in plain text.';
  return `You extract information from ${q.kind} for an API. Use only the material given; say so when it does not contain the answer. ${shape}`;
}

/** Parses a JSON answer, tolerating a ```json fence; undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  try {
    return JSON.parse(fenced ? fenced[1]! : text);
  } catch {
    return undefined;
  }
}

/** True when `value` meets what the caller asked for (JSON, an object with the schema's required keys). */
function acceptable(q: Question, value: unknown): boolean {
  if (value === undefined) return false;
  if (!q.schema) return true;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const required = Array.isArray(q.schema.required) ? q.schema.required : [];
  return required.every((k) => typeof k !== 'string' || k in (value as object));
}

/** One model call, with the JSON retry. */
async function ask(deps: ModelDeps, q: Question, messages: Message[], vision: boolean): Promise<unknown> {
  if (!q.json && !q.schema) return (await chat(deps, { messages, vision })).trim();
  const format: ResponseFormat = q.schema ? { type: 'json_schema', json_schema: { name: 'extraction', schema: q.schema, strict: false } } : { type: 'json_object' };
  let reply = await chat(deps, { messages, vision, format });
  let value = parseJson(reply);
  if (acceptable(q, value)) return value;
  // Issue 15: a model answer that is not JSON is retried once, then a 502.
  deps.ctx.log.warn({ reply: reply.slice(0, 200) }, 'model answer is not the JSON asked for; retrying once');
  const retry: Message[] = [...messages, { role: 'assistant', content: reply }, { role: 'user', content: 'That was not valid JSON of the requested shape. Reply again with the JSON only.' }];
  reply = await chat(deps, { messages: retry, vision, format });
  value = parseJson(reply);
  if (acceptable(q, value)) return value;
  throw new UpstreamError('Received invalid data structure from model service.', { cause: new Error(`not JSON: ${reply.slice(0, 200)}`) });
}

/** Answers `q` (see the module comment). */
export async function answer(deps: ModelDeps, q: Question, limits: AnswerLimits): Promise<Answer> {
  const system: Message = { role: 'system', content: instructions(q) };
  const images = q.images ?? [];
  const overhead = tokens(system.content as string) + tokens(q.prompt) + images.length * IMAGE_TOKENS + 200;
  const room = Math.max(1000, (limits.contextTokens - overhead) * 4);
  const all = split(q.material, room);
  const parts = all.slice(0, limits.maxChunks);
  const droppedChars = all.slice(limits.maxChunks).reduce((n, p) => n + p.length, 0);
  const vision = images.length > 0;
  const user = (material: string, label: string, withImages: boolean): Message => {
    const content: Part[] = [{ type: 'text', text: `${label}\n\n${material || '(no text)'}\n\n---\nPrompt: ${q.prompt}` }];
    if (withImages) for (const img of images) content.push({ type: 'text', text: img.caption }, { type: 'image_url', image_url: { url: img.url } });
    return { role: 'user', content };
  };
  if (parts.length <= 1) {
    const results = await ask(deps, q, [system, user(parts[0] ?? '', `The ${q.kind}:`, true)], vision);
    return { results, chunks: 1, droppedChars };
  }
  const partial = await Promise.all(
    parts.map((p, i) => ask(deps, { ...q, json: true, schema: undefined }, [system, user(p, `Part ${i + 1} of ${parts.length} of the ${q.kind} (answer from this part only; null where it says nothing):`, i === 0)], vision && i === 0)),
  );
  const combined = partial.map((p, i) => `Answer from part ${i + 1}:\n${JSON.stringify(p)}`).join('\n\n');
  const results = await ask(deps, q, [system, { role: 'user', content: `The ${q.kind} was read in ${parts.length} parts. Combine these partial answers into one answer.\n\n${combined}\n\n---\nPrompt: ${q.prompt}` }], false);
  return { results, chunks: parts.length, droppedChars };
}
