/**
 * Extraction capabilities (spec §4.9, §4.10, §9.4; issue 15): the original service's shapes for
 * extract-document, extract-image, extract-audio, extract-video and doc-to-text, plus
 * `document_pages` (a document's text page by page, which the model-backed lane reads documents
 * through). The `extract_*` jobs are service-managed (spec §4.10) and priced as the original:
 * 100 + 10 per page / per image, 100 + 20 per started minute of audio, 100 + 10 per started
 * second of video. Documents, audio and video hold one unit's price up front and the handler
 * grows the hold once it has counted the pages or probed the duration (never past the limits below).
 */
import { Type, defineCapability, flat, type CostRule, type Static, type Units } from '../sdk.js';

/** Base price of every model-backed extraction (issue 15). */
export const EXTRACT_BASE_CREDITS = 100;
/** Most document pages one extract-document call reads (the reservation covers them all). */
export const EXTRACT_MAX_PAGES = 200;
/** Most images one extract-image call takes. */
export const EXTRACT_MAX_IMAGES = 20;
/** Most documents one extract-document call takes. */
export const EXTRACT_MAX_FILES = 20;
/** Longest audio (issue 15: 9.5 h); the setting can only lower it, the reservation assumes it. */
export const AUDIO_MAX_SECONDS = 9.5 * 3600;
/** Longest video (issue 15: 1 h). */
export const VIDEO_MAX_SECONDS = 3600;
/** Most pages one doc-to-text or document_pages call reads (issue 24; the setting can only lower it). */
export const DOC_TEXT_MAX_PAGES = 200;
/** doc-to-text's price: a call, plus each page rendered and read by OCR (issue 24, finding 4). */
export const DOC_TEXT_BASE_CREDITS = 20;
export const DOC_TEXT_OCR_PAGE_CREDITS = 5;

/**
 * `base` plus `credits` per `unit` reported, reserving for `max(input)` units: the shape of
 * every extract-* price. Settles on what was measured (pages read, seconds of media).
 */
export function basePlusPerUnit<I>(opts: { base: number; unit: string; credits: number; max: (input: I) => number; note: string; measured?: boolean }): CostRule<I> {
  const charge = (units: number) => opts.base + Math.ceil(Math.max(0, units)) * opts.credits;
  return {
    describe: { kind: 'custom', note: opts.note },
    reserve: (input) => charge(opts.max(input)),
    // `measured`: the units are only known once the input is read (pages, duration), so one unit
    // is held up front and the handler grows the hold (`ctx.reserveFor`) before its costly work;
    // otherwise a one-page PDF would need the credits of the largest allowed document.
    ...(opts.measured ? { initial: () => charge(1) } : {}),
    settle: (input, units: Units) => charge(Math.min(units[opts.unit] ?? 0, opts.max(input))),
  };
}

const InputMethod = Type.Union([Type.Literal('url'), Type.Literal('base64')], {
  description: 'How the inputs are given: `url` (fetched by the service through its SSRF guard) or `base64` (the content itself; a data: URL is accepted).',
});
const Prompt = Type.String({ minLength: 1, maxLength: 100_000, description: 'What to extract or answer about the input.' });
const JsonMode = Type.Optional(Type.Boolean({ description: 'true: `results` is the model answer parsed as JSON (a non-JSON answer is retried once, then 502); false (default): plain text.' }));
const Results = Type.Unknown({ description: 'The model answer: text, or a parsed JSON value with jsonMode.' });
const CreditUsage = Type.Integer({ description: 'Credits charged for this call.' });
const inputMethodMessage = "'inputMethod' parameter is required and must be 'url' or 'base64'.";
const promptMessage = "'prompt' parameter is required and must be a non-empty string.";

const isHttp = (v: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
};
/** With `inputMethod: 'url'`, every value must be an absolute http(s) URL. */
const urlCheck = (method: string, values: string[], field: string) =>
  method === 'url' && !values.every(isHttp) ? `'${field}' must be http or https URLs when 'inputMethod' is 'url'.` : undefined;

const common = { inputMethod: InputMethod, prompt: Prompt, jsonMode: JsonMode };

const DocumentInput = Type.Object({
  ...common,
  files: Type.Array(Type.String({ minLength: 1, description: 'A document URL or base64 content.' }), {
    minItems: 1,
    maxItems: EXTRACT_MAX_FILES,
    description: 'The documents: PDF or any office format convert-to-pdf accepts (30 MB each, 100 MB in all).',
  }),
  fileExtension: Type.Optional(Type.String({ minLength: 1, maxLength: 10, description: 'Extension of the files when neither their URL nor their bytes say (e.g. `docx`).' })),
});

export const extractDocument = defineCapability({
  id: 'extract_document',
  title: 'Extract data from documents',
  summary: 'Read PDFs and office documents (scanned pages OCRed) and answer a prompt about them with a language model. 100 + 10 credits per page, plus 5 per page read by OCR.',
  tags: ['extract', 'document', 'pdf', 'docx', 'ocr', 'llm', 'ai'],
  input: DocumentInput,
  output: Type.Object({
    results: Results,
    prompt: Type.String({ description: 'The prompt answered.' }),
    pages: Type.Integer({ description: 'Pages read across all documents (the charged unit).' }),
    fileCount: Type.Integer({ description: 'Documents read.' }),
    creditUsage: CreditUsage,
  }),
  cost: basePlusPerUnit<Static<typeof DocumentInput>>({ base: EXTRACT_BASE_CREDITS, unit: 'pages', credits: 10, max: () => EXTRACT_MAX_PAGES, measured: true, note: `100 + 10 per page read (at most ${EXTRACT_MAX_PAGES} pages)` }),
  messages: {
    inputMethod: inputMethodMessage,
    prompt: promptMessage,
    files: `'files' parameter is required and must be an array of 1 to ${EXTRACT_MAX_FILES} non-empty strings.`,
    jsonMode: "'jsonMode' must be a boolean.",
    fileExtension: "'fileExtension' must be a short extension such as 'pdf' or 'docx'.",
  },
  validate: (i: Static<typeof DocumentInput>) => urlCheck(i.inputMethod, i.files, 'files'),
});

const ImageList = Type.Array(Type.String({ minLength: 1, description: 'An image URL or base64 content.' }), {
  minItems: 1,
  maxItems: EXTRACT_MAX_IMAGES,
  description: `The images (PNG, JPEG, WebP, GIF, BMP, TIFF; 1 to ${EXTRACT_MAX_IMAGES}).`,
});

/** The images of an extract-image call as the lane reads them (`image` already made a one-element `images`). */
export const ExtractImageFiles = Type.Object({ ...common, images: ImageList });

const ImageInput = Type.Object({
  ...common,
  images: Type.Optional(ImageList),
  image: Type.Optional(Type.String({ minLength: 1, description: 'One image (URL or base64 content): the same as `images` with one element. Give `image` or `images`.' })),
});
const imagesMessage = `'images' parameter is required and must be an array of 1 to ${EXTRACT_MAX_IMAGES} non-empty strings.`;

/** The images of an extract-image input: `images`, or the singular `image` as a one-element list (issue 28). */
export function imagesOf(i: { images?: string[]; image?: string }): string[] {
  return i.images ?? (i.image === undefined ? [] : [i.image]);
}

export const extractImage = defineCapability({
  id: 'extract_image',
  title: 'Extract data from images',
  summary: 'OCR images locally and answer a prompt about them with a vision model. 100 + 10 credits per image.',
  tags: ['extract', 'image', 'ocr', 'vision', 'llm', 'ai'],
  input: ImageInput,
  output: Type.Object({
    results: Results,
    prompt: Type.String({ description: 'The prompt answered.' }),
    imageCount: Type.Integer({ description: 'Images read (the charged unit).' }),
    creditUsage: CreditUsage,
  }),
  cost: basePlusPerUnit<Static<typeof ImageInput>>({ base: EXTRACT_BASE_CREDITS, unit: 'images', credits: 10, max: (i) => imagesOf(i).length || EXTRACT_MAX_IMAGES, note: '100 + 10 per image' }),
  messages: {
    inputMethod: inputMethodMessage,
    prompt: promptMessage,
    images: imagesMessage,
    image: "'image' must be a non-empty string (an image URL or base64 content).",
    jsonMode: "'jsonMode' must be a boolean.",
  },
  validate: (i: Static<typeof ImageInput>) => {
    if (i.images !== undefined && i.image !== undefined) return "Give either 'image' or 'images', not both.";
    if (i.images === undefined && i.image === undefined) return imagesMessage;
    return urlCheck(i.inputMethod, imagesOf(i), i.images ? 'images' : 'image');
  },
});

const AudioInput = Type.Object({ ...common, audio: Type.String({ minLength: 1, description: 'Audio URL or base64 content (wav, mp3, aiff, aac, ogg, flac; 100 MB, 9.5 h).' }) });

export const extractAudio = defineCapability({
  id: 'extract_audio',
  title: 'Extract data from audio',
  summary: 'Transcribe audio (normalised and chunked locally) and answer a prompt about it with a language model. 100 + 20 credits per started minute.',
  tags: ['extract', 'audio', 'speech', 'transcription', 'llm', 'ai'],
  input: AudioInput,
  output: Type.Object({
    results: Results,
    prompt: Type.String({ description: 'The prompt answered.' }),
    audioDuration: Type.Number({ description: 'Duration of the audio in seconds.' }),
    creditUsage: CreditUsage,
  }),
  cost: basePlusPerUnit({ base: EXTRACT_BASE_CREDITS, unit: 'minutes', credits: 20, max: () => Math.ceil(AUDIO_MAX_SECONDS / 60), measured: true, note: '100 + 20 per started minute of audio' }),
  messages: { inputMethod: inputMethodMessage, prompt: promptMessage, audio: "'audio' parameter is required and must be a non-empty string.", jsonMode: "'jsonMode' must be a boolean." },
  validate: (i: Static<typeof AudioInput>) => urlCheck(i.inputMethod, [i.audio], 'audio'),
});

const VideoInput = Type.Object({ ...common, video: Type.String({ minLength: 1, description: 'Video URL or base64 content (mp4, mpeg, mov, avi, flv, mpg, webm, wmv, 3gpp; 1 h).' }) });

export const extractVideo = defineCapability({
  id: 'extract_video',
  title: 'Extract data from video',
  summary: 'Sample keyframes (scene changes) and transcribe the soundtrack locally, then answer a prompt with a vision model. 100 + 10 credits per started second.',
  tags: ['extract', 'video', 'frames', 'transcription', 'vision', 'llm', 'ai'],
  input: VideoInput,
  output: Type.Object({
    results: Results,
    prompt: Type.String({ description: 'The prompt answered.' }),
    videoDuration: Type.Number({ description: 'Duration of the video in seconds.' }),
    creditUsage: CreditUsage,
  }),
  cost: basePlusPerUnit({ base: EXTRACT_BASE_CREDITS, unit: 'seconds', credits: 10, max: () => VIDEO_MAX_SECONDS, measured: true, note: '100 + 10 per started second of video' }),
  messages: { inputMethod: inputMethodMessage, prompt: promptMessage, video: "'video' parameter is required and must be a non-empty string.", jsonMode: "'jsonMode' must be a boolean." },
  validate: (i: Static<typeof VideoInput>) => urlCheck(i.inputMethod, [i.video], 'video'),
});

const PagesSelection = Type.Optional(
  Type.String({ maxLength: 1000, description: 'Pages to read: numbers and ranges separated by commas ("1, 2-", "1, 2, 3-7"); `!n` counts from the end ("!1" is the last page). Default: all.' }),
);
const DocInput = Type.Object({
  inputMethod: InputMethod,
  file: Type.String({ minLength: 1, description: 'Document URL or base64 content: PDF, an office format, an image (OCR) or plain text.' }),
  pages: PagesSelection,
  fileExtension: Type.Optional(Type.String({ minLength: 1, maxLength: 10, description: 'Extension of the file when neither its URL nor its bytes say (e.g. `docx`).' })),
});
const docMessages = {
  inputMethod: inputMethodMessage,
  file: "'file' parameter is required and must be a non-empty string.",
  pages: "'pages' must be a string such as \"1, 2-\" or \"!1\".",
  fileExtension: "'fileExtension' must be a short extension such as 'pdf' or 'docx'.",
};
const docValidate = (i: Static<typeof DocInput>) => urlCheck(i.inputMethod, [i.file], 'file');

/**
 * The price of reading a document (issue 24, finding 4: 200 blank pages were OCRed for a flat
 * 20 credits): 20 a call plus 5 per page rendered and read by OCR (unit `ocr_pages`); one OCR
 * page is held up front and the reader grows the hold once it knows which pages need OCR.
 */
export function docTextCost(): CostRule {
  return basePlusPerUnit({
    base: DOC_TEXT_BASE_CREDITS,
    unit: 'ocr_pages',
    credits: DOC_TEXT_OCR_PAGE_CREDITS,
    max: () => DOC_TEXT_MAX_PAGES,
    measured: true,
    note: `${DOC_TEXT_BASE_CREDITS} + ${DOC_TEXT_OCR_PAGE_CREDITS} per page read by OCR (scans, images; at most ${DOC_TEXT_MAX_PAGES} pages a call)`,
  });
}

/** A tiny one-page PDF whose text is "Hello from doc_to_text", for examples (valid xref). */
export function examplePdfBase64(): string {
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const stream = 'BT /F1 12 Tf 20 50 Td (Hello from doc_to_text) Tj ET';
  objs[3] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(pdf.length);
    pdf += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1').toString('base64');
}

/** Output of `document_pages`. */
export const DocumentPagesOutput = Type.Object({
  pageCount: Type.Integer({ description: 'Pages in the document.' }),
  pages: Type.Array(
    Type.Object({
      page: Type.Integer({ description: 'Page number, from 1.' }),
      text: Type.String({ description: 'Text of the page.' }),
      ocr: Type.Boolean({ description: 'True when the page had no text layer and was read by OCR.' }),
    }),
    { description: 'The selected pages in document order.' },
  ),
  format: Type.String({ description: 'The format read (pdf, docx, png, txt…).' }),
});

export const documentPages = defineCapability({
  id: 'document_pages',
  title: 'Read a document page by page',
  summary: 'Text of each page of a PDF, office document or image (scanned pages OCRed), with the page count. No model involved.',
  tags: ['document', 'pdf', 'text', 'ocr', 'pages', 'docx'],
  input: DocInput,
  output: DocumentPagesOutput,
  cost: docTextCost(),
  messages: docMessages,
  validate: docValidate,
  examples: [{ title: 'The pages of a one-page PDF', input: { inputMethod: 'base64', file: examplePdfBase64() } }],
});

export const docToText = defineCapability({
  id: 'doc_to_text',
  title: 'Document to text',
  summary: 'Plain text of a PDF, office document or image (scanned pages OCRed locally), optionally of selected pages. No model involved. 20 credits, plus 5 per page read by OCR.',
  tags: ['document', 'pdf', 'text', 'ocr', 'docx', 'convert'],
  input: DocInput,
  output: Type.Object({ text: Type.String({ description: 'The text of the selected pages, pages separated by a blank line.' }) }),
  cost: docTextCost(),
  messages: docMessages,
  validate: docValidate,
  examples: [{ title: 'Text of a one-page PDF', input: { inputMethod: 'base64', file: examplePdfBase64() }, output: { text: 'Hello from doc_to_text' } }],
});

/** Input of `extract_web` per issue 15 (`url`, and `schema` or `prompt`). */
export const ExtractWebInput = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 8192, description: 'Page to extract from (http or https).' }),
  schema: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'What `results` must look like: a JSON Schema of an object, or a map of field names to type names (`{"title": "string", "price": "number"}`, nesting and `["string"]` allowed), all fields required.' })),
  prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000, description: 'What to extract, when no schema is given (or to guide it).' })),
});

/** Output of `extract_web` per issue 15. */
export const ExtractWebOutput = Type.Object({
  results: Type.Object({}, { additionalProperties: true, description: 'The extracted data: an object matching `schema`, or the fields the prompt asked for.' }),
  screenshotUrl: Type.Union([Type.String(), Type.Null()], { description: 'Temporary URL of a screenshot of the page (null when the screenshot failed).' }),
});

/** The type names a shorthand schema may use (issue 28: `{"title":"string","price":"number"}`). */
const TYPE_NAMES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'];
const SCHEMA_MESSAGE =
  "'schema' must be a JSON Schema of type 'object' (with 'type' or 'properties'), or a map of field names to type names (string, number, integer, boolean, array, object; nested maps and one-element lists such as [\"string\"] allowed).";

const SCHEMA_KEYWORDS = ['$schema', '$ref', '$defs', 'properties', 'items', 'required', 'additionalProperties', 'enum', 'const', 'anyOf', 'oneOf', 'allOf'];

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON Schema for one shorthand value, or undefined when it is no shorthand. */
function shorthandValue(v: unknown, depth: number): Record<string, unknown> | undefined {
  if (depth > 8) return undefined;
  if (typeof v === 'string') return TYPE_NAMES.includes(v) ? { type: v } : undefined;
  if (Array.isArray(v)) {
    if (v.length !== 1) return undefined;
    const items = shorthandValue(v[0], depth + 1);
    return items && { type: 'array', items };
  }
  if (isPlainObject(v)) return shorthandObject(v, depth + 1);
  return undefined;
}

function shorthandObject(map: Record<string, unknown>, depth: number): Record<string, unknown> | undefined {
  const keys = Object.keys(map);
  if (keys.length === 0) return undefined;
  const properties: Record<string, unknown> = {};
  for (const k of keys) {
    const p = shorthandValue(map[k], depth);
    if (!p) return undefined;
    properties[k] = p;
  }
  return { type: 'object', properties, required: keys, additionalProperties: false };
}

/** True when `schema` reads as a JSON Schema of an object (a `type: 'object'` or a `properties` map of schemas). */
function isObjectSchema(schema: Record<string, unknown>): boolean {
  if (schema.type !== undefined) return schema.type === 'object';
  if (!isPlainObject(schema.properties)) return false;
  return Object.values(schema.properties).every((p) => isPlainObject(p) || typeof p === 'boolean');
}

/**
 * The JSON Schema an `extract_web` `schema` stands for: a JSON Schema of an object as given, a
 * shorthand map of field → type name turned into one (every field required), else undefined.
 */
export function extractSchemaOf(schema: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(schema)) return undefined;
  // Models' structured-output modes want the object type said, so a `properties`-only schema gets it.
  if (isObjectSchema(schema)) return schema.type === undefined ? { type: 'object', ...schema } : schema;
  // Keywords only a JSON Schema has: it is one, just not of an object.
  if (Object.keys(schema).some((k) => SCHEMA_KEYWORDS.includes(k)) || Object.keys(schema).join() === 'type') return undefined;
  return shorthandObject(schema, 0);
}

/** Cross-field rule of `extract_web`: a schema or a prompt (issue 15); a schema that is neither form is refused before any work (issue 28). */
export function checkExtractWeb(i: Static<typeof ExtractWebInput>): string | undefined {
  if (i.schema === undefined && !i.prompt) return "Either 'schema' or 'prompt' must be provided.";
  if (i.schema !== undefined && !extractSchemaOf(i.schema)) {
    const type = (i.schema as { type?: unknown }).type;
    return typeof type === 'string' && type !== 'object' && TYPE_NAMES.includes(type) ? "'schema' must be a JSON Schema of type 'object'." : SCHEMA_MESSAGE;
  }
  if (!isHttp(String(i.url).trim())) return `Invalid URL: '${String(i.url).slice(0, 200)}' is not an absolute http or https URL.`;
  return undefined;
}

/** Credits of `extract_web` (issue 15). */
export const EXTRACT_WEB_CREDITS = 250;

/** Longest text `extract_text` takes, in characters (longer material is read in parts by the model lane). */
export const EXTRACT_TEXT_MAX_CHARS = 2_000_000;
/** Credits of `extract_text`: the base price of a model-backed extraction, with nothing to render or read first. */
export const EXTRACT_TEXT_CREDITS = EXTRACT_BASE_CREDITS;

/** Input of `extract_text`: the material itself, and a schema or a prompt as `extract_web` takes them. */
export const ExtractTextInput = Type.Object({
  text: Type.String({ minLength: 1, maxLength: EXTRACT_TEXT_MAX_CHARS, description: 'Markdown or plain text.' }),
  schema: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Fields: a JSON Schema of an object, or {"field": "type"}.' })),
  prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000, description: 'What to extract.' })),
});

/** Cross-field rule of `extract_text`: a schema or a prompt, the schema in a form the model lane understands. */
export function checkExtractText(i: Static<typeof ExtractTextInput>): string | undefined {
  return checkExtractWeb({ url: 'https://text.invalid/', schema: i.schema, prompt: i.prompt });
}

/**
 * `extract_text` (issue 27, change tracking's json mode): fill a JSON Schema, or answer a prompt
 * as a JSON object, from text the caller already has; the model-backed lane without a page to
 * fetch. A scrape asks it for the fields it compares between snapshots.
 */
export const extractText = defineCapability({
  id: 'extract_text',
  title: 'Extract structured data from text',
  summary: 'Fill a JSON Schema, or answer a prompt as JSON, from your text with a language model.',
  tags: ['extract', 'text', 'markdown', 'llm', 'schema', 'structured', 'json'],
  input: ExtractTextInput,
  output: Type.Object({ results: ExtractWebOutput.properties.results }),
  cost: flat(EXTRACT_TEXT_CREDITS),
  validate: checkExtractText,
  messages: {
    text: `'text' parameter is required and must be a non-empty string of at most ${EXTRACT_TEXT_MAX_CHARS} characters.`,
    schema: "'schema' must be a JSON Schema object.",
    prompt: "'prompt' must be a non-empty string.",
  },
  examples: [{ title: 'Fields of a product text', input: { text: 'Blue Kettle. Price: 39 euros.', schema: { name: 'string', price: 'number' } } }],
});

export default [extractDocument, extractImage, extractAudio, extractVideo, extractText, documentPages, docToText];
