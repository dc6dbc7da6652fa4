/**
 * THE v1 mapping table (spec §9.1, §9.4): every direct-lane path of the spec and the registry
 * target it runs. Request bodies are the target's input (minus `requestSource`) and responses are
 * its output, so a lane's shapes live in its capability schema, not here. A row whose target has
 * no provider yet (a capability nobody serves, an endpoint of a plugin this deployment does not
 * list) answers `Service not configured` and starts working when a plugin serves it. It lives
 * outside `server/v1/` because the MCP lane offers the same jobs (no lane imports another).
 */

/** One direct-lane route. */
export interface LegacyRoute {
  method: 'GET' | 'POST';
  path: string;
  /** `capability:<id>` or `endpoint:<provider>.<operation>`. */
  target: string;
}

/** Every v1 route of the spec. */
export const LEGACY_ROUTES: LegacyRoute[] = [
  // Video site (spec §4.1)
  { method: 'POST', path: '/api/v1/videosite/channel', target: 'capability:videosite_channel' },
  { method: 'POST', path: '/api/v1/videosite/video', target: 'capability:videosite_video' },
  { method: 'POST', path: '/api/v1/videosite/video/comments', target: 'capability:videosite_video_comments' },
  { method: 'POST', path: '/api/v1/get-videosite-transcript', target: 'capability:get_videosite_transcript' },
  // Listing operations whose paths the spec leaves out (issue 12: the original's paths, neutral word).
  { method: 'POST', path: '/api/v1/videosite/channel-videos', target: 'capability:videosite_channel_videos' },
  { method: 'POST', path: '/api/v1/videosite/channel/shorts', target: 'capability:videosite_channel_shorts' },
  { method: 'POST', path: '/api/v1/videosite/search', target: 'capability:videosite_search' },
  // Short-video site (spec §4.2)
  { method: 'POST', path: '/api/v1/get-clipsite-video-comments', target: 'capability:clipsite_video_comments' },
  { method: 'POST', path: '/api/v1/get-clipsite-user-following', target: 'capability:clipsite_user_following' },
  { method: 'POST', path: '/api/v1/get-clipsite-transcript', target: 'capability:clipsite_transcript' },
  { method: 'POST', path: '/api/v1/get-clipsite-profile', target: 'endpoint:creator_a.clipsite_profile' },
  // New rows with the original service's paths, neutral words (issue 13)
  { method: 'POST', path: '/api/v1/get-clipsite-user-followers', target: 'capability:clipsite_user_followers' },
  { method: 'POST', path: '/api/v1/get-clipsite-profile-videos', target: 'capability:clipsite_profile_videos' },
  { method: 'POST', path: '/api/v1/get-clipsite-video', target: 'capability:clipsite_video' },
  // Professional network (spec §4.3)
  { method: 'POST', path: '/api/v1/bizsite/company', target: 'capability:bizsite_company' },
  { method: 'POST', path: '/api/v1/bizsite/profile', target: 'capability:bizsite_profile' },
  // Search engine (spec §4.4, §4.9)
  { method: 'POST', path: '/api/v1/get-engine-reviews', target: 'capability:get_engine_reviews' },
  { method: 'POST', path: '/api/v1/get-autocomplete', target: 'capability:engine_autocomplete' },
  { method: 'GET', path: '/api/v1/engine-locations', target: 'capability:engine_locations' },
  { method: 'POST', path: '/api/v1/search-news', target: 'capability:search_news' },
  // The original's own clients' routes (issue 14): web search with optional scraping, places, maps.
  { method: 'POST', path: '/api/v1/search', target: 'capability:engine_search' },
  { method: 'POST', path: '/api/v1/search-places', target: 'capability:search_places' },
  { method: 'POST', path: '/api/v1/search-maps', target: 'capability:search_maps' },
  // Web (spec §4.5, §4.9)
  { method: 'POST', path: '/api/v1/scrape', target: 'capability:scrape_page' },
  { method: 'POST', path: '/api/v1/crawl', target: 'capability:crawl_site' },
  // Issue 14: the original service's screenshot route (20 credits, +10 autoScroll, +10 wait > 0).
  { method: 'POST', path: '/api/v1/screenshot', target: 'capability:screenshot' },
  // Documents (spec §4.6)
  { method: 'POST', path: '/api/v1/convert-to-pdf', target: 'capability:convert_to_pdf' },
  { method: 'GET', path: '/api/v1/convert-to-pdf', target: 'capability:convert_to_pdf_formats' },
  { method: 'POST', path: '/api/v1/merge-pdfs', target: 'capability:merge_pdfs' },
  // The original service's PDF metadata routes (issue 28).
  { method: 'POST', path: '/api/v1/read-pdf-metadata', target: 'capability:read_pdf_metadata' },
  { method: 'POST', path: '/api/v1/write-pdf-metadata', target: 'capability:write_pdf_metadata' },
  // AI images (spec §4.7)
  { method: 'POST', path: '/api/v1/generate-ai-image', target: 'capability:generate_ai_image' },
  // Code execution (spec §4.8)
  { method: 'POST', path: '/api/v1/run-js-code', target: 'capability:run_js_code' },
  { method: 'POST', path: '/api/v1/run-python-code', target: 'capability:run_python_code' },
  // Extraction (spec §4.9, §9.4)
  { method: 'POST', path: '/api/v1/extract-audio', target: 'capability:extract_audio' },
  { method: 'POST', path: '/api/v1/extract-video', target: 'capability:extract_video' },
  // The original service's extraction routes (issue 15); extract_web is served by the extract lane.
  { method: 'POST', path: '/api/v1/extract', target: 'capability:extract_web' },
  { method: 'POST', path: '/api/v1/extract-document', target: 'capability:extract_document' },
  { method: 'POST', path: '/api/v1/extract-image', target: 'capability:extract_image' },
  { method: 'POST', path: '/api/v1/doc-to-text', target: 'capability:doc_to_text' },
  // Media (issue 28): the original service's trim route.
  { method: 'POST', path: '/api/v1/trim-video', target: 'capability:trim_video' },
];

/** The provider endpoints a v1 row runs directly (v1-only jobs that the MCP lane offers too). */
export function v1EndpointIds(routes: readonly LegacyRoute[] = LEGACY_ROUTES): ReadonlySet<string> {
  return new Set(routes.filter((r) => r.target.startsWith('endpoint:')).map((r) => r.target.slice('endpoint:'.length)));
}
