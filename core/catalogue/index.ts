/**
 * The capability catalogue: every capability id of spec §4.10 plus the direct-lane jobs
 * (spec §9.1), declared as extension points, with the schemas and helpers providers share
 * (re-exported by `core/sdk.ts`, so a provider serving `crawl_site` imports `crawlOutput` from
 * the SDK, not from another plugin). The `capabilities` plugin registers them.
 */
import web from './web.js';
import { batchScrape } from './web-batch.js';
import { mapSite } from './web-map.js';
import documents from './documents.js';
import code from './code.js';
import search from './search.js';
import transcript from './transcript.js';
import extract from './extract.js';
import videosite from './videosite.js';
import clipsite from './clipsite.js';
import bizsite from './bizsite.js';
import image from './image.js';
import trim from './trim.js';
import pdfMetadata from './pdf-metadata.js';

/** Every capability the service declares. */
export const catalogue = [...search, ...web, mapSite, batchScrape, ...transcript, ...extract, ...documents, ...code, ...videosite, ...clipsite, ...bizsite, ...image, ...trim, ...pdfMetadata];

export * from './web.js';
export * from './web-batch.js';
export * from './web-map.js';
export * from './web-paths.js';
export * from './documents.js';
export * from './code.js';
export * from './search.js';
export * from './transcript.js';
export * from './videosite.js';
export * from './extract.js';
export * from './image.js';
export * from './clipsite.js';
export * from './bizsite.js';
export * from './common.js';
export * from './trim.js';
export * from './pdf-metadata.js';
export * from './location-check.js';
