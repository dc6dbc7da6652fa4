/**
 * Settings of the extract lane (issue 15): the OpenAI-compatible model (MODEL_*, explicit env
 * names, so any deployment's model server is one set of variables) and the input limits
 * (EXTRACT_*). Duration limits can only be lowered: the credit reservation assumes the maxima.
 */
import { type ResolvedConfig } from '../../core/sdk.js';
import { AUDIO_MAX_SECONDS, VIDEO_MAX_SECONDS } from '../../core/catalogue.js';

export const config = {
  baseUrl: { env: 'MODEL_BASE_URL', type: 'url', description: 'OpenAI-compatible API base URL (OpenAI, Gemini /v1beta/openai, vLLM, llama.cpp, Ollama /v1, LM Studio).', default: 'https://api.openai.com/v1' },
  apiKey: { env: 'MODEL_API_KEY', type: 'secret', description: 'Model API key (Bearer). Without it the extract_* capabilities answer `Service not configured`; local servers that need none take any value.', required: true },
  model: { env: 'MODEL_NAME', description: 'Chat model for text (documents, transcripts, pages).', default: 'gpt-4o-mini' },
  visionModel: { env: 'MODEL_VISION_NAME', description: 'Chat model for images, video frames and screenshots (default: MODEL_NAME).' },
  transcribeModel: { env: 'MODEL_TRANSCRIBE_NAME', description: 'Speech-to-text model of `audio/transcriptions`.', default: 'whisper-1' },
  timeoutMs: { env: 'MODEL_TIMEOUT_MS', type: 'integer', description: 'Time allowed for one model request, in ms.', default: 120000, min: 1000, max: 600000 },
  maxConcurrency: { env: 'MODEL_MAX_CONCURRENCY', type: 'integer', description: 'Model requests in flight at once on the instance; more wait.', default: 4, min: 1, max: 256 },
  contextTokens: { env: 'MODEL_CONTEXT_TOKENS', type: 'integer', description: 'Input tokens one model request may carry; longer material is read in parts and the answers combined.', default: 100000, min: 2000, max: 10000000 },
  maxChunks: { env: 'MODEL_MAX_CHUNKS', type: 'integer', description: 'Most parts one call reads; material beyond is dropped and reported in meta.native.', default: 8, min: 1, max: 100 },
  audioChunkSeconds: { env: 'MODEL_AUDIO_CHUNK_SECONDS', type: 'integer', description: 'Length of the audio pieces sent for transcription, in seconds (64 kbit/s mono MP3).', default: 600, min: 30, max: 3000 },
  documentMaxMb: { env: 'EXTRACT_DOCUMENT_MAX_MB', type: 'integer', description: 'Largest document of extract-document, in MB.', default: 30, min: 1, max: 100 },
  documentsTotalMb: { env: 'EXTRACT_DOCUMENTS_TOTAL_MB', type: 'integer', description: 'Largest total of the documents of one extract-document call, in MB.', default: 100, min: 1, max: 1000 },
  imageMaxMb: { env: 'EXTRACT_IMAGE_MAX_MB', type: 'integer', description: 'Largest image of extract-image, in MB.', default: 20, min: 1, max: 100 },
  audioMaxMb: { env: 'EXTRACT_AUDIO_MAX_MB', type: 'integer', description: 'Largest audio file, in MB.', default: 100, min: 1, max: 2000 },
  audioMaxSeconds: { env: 'EXTRACT_AUDIO_MAX_SECONDS', type: 'integer', description: 'Longest audio, in seconds (9.5 h at most).', default: AUDIO_MAX_SECONDS, min: 1, max: AUDIO_MAX_SECONDS },
  videoMaxMb: { env: 'EXTRACT_VIDEO_MAX_MB', type: 'integer', description: 'Largest video file, in MB.', default: 500, min: 1, max: 5000 },
  videoMaxSeconds: { env: 'EXTRACT_VIDEO_MAX_SECONDS', type: 'integer', description: 'Longest video, in seconds (1 h at most).', default: VIDEO_MAX_SECONDS, min: 1, max: VIDEO_MAX_SECONDS },
  videoMaxFrames: { env: 'EXTRACT_VIDEO_MAX_FRAMES', type: 'integer', description: 'Keyframes of a video sent to the vision model.', default: 16, min: 1, max: 100 },
  ocrLanguages: { env: 'EXTRACT_OCR_LANGUAGES', description: 'Tesseract languages for images (installed traineddata, e.g. `eng+deu`).', default: 'eng' },
  maxProcesses: { env: 'EXTRACT_MAX_PROCESSES', type: 'integer', description: 'ffmpeg, ffprobe and tesseract processes run at once on the instance.', default: 2, min: 1, max: 64 },
  toolTimeoutMs: { env: 'EXTRACT_TOOL_TIMEOUT_MS', type: 'integer', description: 'Longest one ffmpeg, ffprobe or tesseract run may take, in ms.', default: 600000, min: 1000, max: 3600000 },
} as const;

/** The settings as they arrive in `ctx.config`. */
export type Settings = ResolvedConfig<typeof config>;
