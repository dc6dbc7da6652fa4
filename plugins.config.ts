/**
 * Which plugins exist (one line each) and the order providers are tried per capability.
 * Who may use them is key policy (admin API), never this list.
 */
import type { ServiceConfig } from './core/registry/types.js';

const config: ServiceConfig = {
  plugins: {
    capabilities: () => import('./plugins/capabilities/index.js'),
    web: () => import('./plugins/web/index.js'),
    documents: () => import('./plugins/documents/index.js'),
    code: () => import('./plugins/code/index.js'),
    doc_text: () => import('./plugins/doc_text/index.js'),
    extract: () => import('./plugins/extract/index.js'),
    crawler_a: () => import('./plugins/crawler_a/index.js'),
    spider_a: () => import('./plugins/spider_a/index.js'),
    shot_a: () => import('./plugins/shot_a/index.js'),
    browser_a: () => import('./plugins/browser_a/index.js'),
    search_a: () => import('./plugins/search_a/index.js'),
    locations: () => import('./plugins/locations/index.js'),
    videosite_native: () => import('./plugins/videosite_native/index.js'),
    seo_a: () => import('./plugins/seo_a/index.js'),
    answer_a: () => import('./plugins/answer_a/index.js'),
    creator_a: () => import('./plugins/creator_a/index.js'),
    image_a: () => import('./plugins/image_a/index.js'),
    transcript_a: () => import('./plugins/transcript_a/index.js'),
    video_trim: () => import('./plugins/video_trim/index.js'),
    pdf_metadata: () => import('./plugins/pdf_metadata/index.js'),
  },
  providerOrder: {
    // spec §4.10: crawl_site defaults to crawler_a and falls back to spider_a, then our own crawler.
    crawl_site: ['crawler_a', 'spider_a', 'web'],
    // The service's own Chromium serves pages and screenshots unless a provider is chosen.
    scrape_page: ['web'],
    // Issue 25: our own map first (robots.txt, path rules, gz sitemaps); crawler_a's map behind it.
    map_site: ['web', 'crawler_a'],
    batch_scrape: ['web'],
    screenshot: ['web', 'shot_a', 'browser_a', 'crawler_a'],
    // Issue 12: the video site itself first (no key), hosted providers after it.
    get_videosite_transcript: ['videosite_native', 'transcript_a', 'creator_a'],
    videosite_channel: ['videosite_native', 'creator_a'],
    videosite_video: ['videosite_native', 'creator_a'],
    videosite_video_comments: ['videosite_native', 'creator_a'],
    videosite_channel_videos: ['videosite_native', 'creator_a'],
    videosite_channel_shorts: ['videosite_native'],
    videosite_search: ['videosite_native'],
  },
  defaultPolicy: {},
  disabled: [],
};

export default config;
