/**
 * The plugins this repository ships (folders under `plugins/`), in the order the README lists
 * them. The README's generated tables and its test cover these only (issue 28): a deployment that
 * adds its own plugin (one folder + one line in `plugins.config.ts`) does not make the README
 * stale; its settings are in the reference the instance serves (`GET /settings-reference`).
 */
export const SHIPPED_PLUGINS = [
  'capabilities',
  'web',
  'documents',
  'code',
  'doc_text',
  'extract',
  'crawler_a',
  'spider_a',
  'shot_a',
  'browser_a',
  'search_a',
  'locations',
  'videosite_native',
  'seo_a',
  'answer_a',
  'creator_a',
  'image_a',
  'transcript_a',
  'video_trim',
  'pdf_metadata',
] as const;
