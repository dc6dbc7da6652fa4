/**
 * extract (issue 15; spec §4.9, §4.10): the service-managed extraction lane. Local work first —
 * documents through the key-less doc_text lane, images OCRed and downscaled, audio and video
 * measured, normalised, chunked and sampled with ffmpeg, web pages through our own scrape and
 * screenshot lanes, text as given — then any OpenAI-compatible model (MODEL_* settings) answers the prompt.
 * Without MODEL_API_KEY the plugin is not configured: its capabilities answer `Service not
 * configured` and discovery says so, while doc_to_text (plugin doc_text) keeps working.
 */
import { defineEndpoint, definePlugin, flat, implement } from '../../core/sdk.js';
import { EXTRACT_WEB_CREDITS, ExtractWebInput, ExtractWebOutput, checkExtractWeb, extractAudio, extractDocument, extractImage, extractText, extractVideo, extractWeb, imagesOf } from '../../core/catalogue.js';
import { extractAudioData } from './audio.js';
import { config } from './config.js';
import { extractDocuments } from './document.js';
import { EXAMPLE_PNG, exampleWav } from './examples.js';
import { extractImages } from './image.js';
import type { State } from './lane.js';
import { Gate } from '../../core/sdk.js';
import { extractVideoData } from './video.js';
import { extractWebData } from './web.js';
import { extractTextData } from './text.js';

// Media work and model calls are bounded by their gates; this only stops a runaway call.
const TIMEOUT_MS = 30 * 60 * 1000;

const document = defineEndpoint({
  operation: 'document',
  title: 'Extract data from documents',
  summary: extractDocument.summary,
  input: extractDocument.input,
  output: extractDocument.output!,
  cost: extractDocument.cost,
  messages: extractDocument.messages,
  validate: extractDocument.validate,
  timeoutMs: TIMEOUT_MS,
  perKeyConcurrency: 2,
  examples: [{ title: 'Summarise a text file', input: { inputMethod: 'base64', files: [Buffer.from('Invoice 42: total 99 EUR').toString('base64')], fileExtension: 'txt', prompt: 'What is the total?' } }],
  run: extractDocuments,
});

const image = defineEndpoint({
  operation: 'image',
  title: 'Extract data from images',
  summary: extractImage.summary,
  input: extractImage.input,
  output: extractImage.output!,
  cost: extractImage.cost,
  messages: extractImage.messages,
  validate: extractImage.validate,
  timeoutMs: TIMEOUT_MS,
  perKeyConcurrency: 2,
  examples: [{ title: 'Describe an image as JSON', input: { inputMethod: 'base64', images: [EXAMPLE_PNG], prompt: 'Describe the image.', jsonMode: true } }],
  // A singular `image` is a one-element `images` (issue 28).
  run: ({ image: _one, ...input }, ctx) => extractImages({ ...input, images: imagesOf({ images: input.images, image: _one }) }, ctx),
});

const audio = defineEndpoint({
  operation: 'audio',
  title: 'Extract data from audio',
  summary: extractAudio.summary,
  input: extractAudio.input,
  output: extractAudio.output!,
  cost: extractAudio.cost,
  messages: extractAudio.messages,
  validate: extractAudio.validate,
  timeoutMs: TIMEOUT_MS,
  perKeyConcurrency: 2,
  examples: [{ title: 'Summarise a recording', input: { inputMethod: 'base64', audio: exampleWav(), prompt: 'Summarise what is said.' } }],
  run: extractAudioData,
});

const video = defineEndpoint({
  operation: 'video',
  title: 'Extract data from video',
  summary: extractVideo.summary,
  input: extractVideo.input,
  output: extractVideo.output!,
  cost: extractVideo.cost,
  messages: extractVideo.messages,
  validate: extractVideo.validate,
  timeoutMs: TIMEOUT_MS,
  perKeyConcurrency: 2,
  run: extractVideoData,
});

const web = defineEndpoint({
  operation: 'web',
  title: 'Extract structured data from a web page',
  summary: 'Render a page through the scrape lane, screenshot it, and fill a JSON Schema (or answer a prompt) with a vision model. 250 credits.',
  tags: ['extract', 'web', 'llm', 'schema', 'structured'],
  input: ExtractWebInput,
  output: ExtractWebOutput,
  cost: flat(EXTRACT_WEB_CREDITS),
  validate: checkExtractWeb,
  messages: { url: "'url' parameter is required and must be a non-empty string.", schema: "'schema' must be a JSON Schema object.", prompt: "'prompt' must be a non-empty string." },
  timeoutMs: 5 * 60 * 1000,
  perKeyConcurrency: 2,
  run: extractWebData,
});

const text = defineEndpoint({
  operation: 'text',
  title: 'Extract structured data from text',
  summary: extractText.summary,
  input: extractText.input,
  output: extractText.output!,
  cost: extractText.cost,
  messages: extractText.messages,
  validate: extractText.validate,
  timeoutMs: 5 * 60 * 1000,
  perKeyConcurrency: 2,
  examples: [{ title: 'Fields of a product text', input: { text: 'Blue Kettle. Price: 39 euros.', schema: { name: 'string', price: 'number' } } }],
  run: extractTextData,
});

export default definePlugin<State, typeof config>({
  id: 'extract',
  apiVersion: 1,
  title: 'Extraction',
  summary: 'Extract data from documents, images, audio, video and web pages: local pre-processing (poppler, LibreOffice, Tesseract, ffmpeg, Chromium) and any OpenAI-compatible model.',
  tags: ['extract', 'llm', 'ocr', 'transcription', 'vision', 'managed'],
  managed: true,
  config,
  setup: ({ config: c }) => ({ modelGate: new Gate(c.maxConcurrency), toolGate: new Gate(c.maxProcesses) }),
  endpoints: [document, image, audio, video, web, text],
  implements: [implement(extractDocument, document), implement(extractImage, image), implement(extractAudio, audio), implement(extractVideo, video), implement(extractWeb, web), implement(extractText, text)],
});
