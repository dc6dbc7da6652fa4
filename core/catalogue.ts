/**
 * The capability catalogue's entry point: every capability id of spec §4.10 plus the direct-lane
 * jobs (spec §9.1), declared as extension points, with the schemas, prices and helpers providers
 * share. A provider serving `crawl_site` imports `crawlOutput` from here, not from another plugin;
 * the `capabilities` plugin registers `catalogue`. The catalogue is built on `core/sdk.ts` and the
 * engine never imports it (issue 29): what the engine needs of a capability it reads from the
 * definition the registry holds.
 *
 * Adding a capability: a file in `core/catalogue/` that exports its definitions (and default-exports
 * them as a list), one `export *` line below, and its place in `catalogue` (the listing order).
 */
import type { CapabilityDef } from './sdk.js';
import web from './catalogue/web.js';
import { batchScrape } from './catalogue/web-batch.js';
import { mapSite } from './catalogue/web-map.js';
import documents from './catalogue/documents.js';
import code from './catalogue/code.js';
import search from './catalogue/search.js';
import transcript from './catalogue/transcript.js';
import extract from './catalogue/extract.js';
import videosite from './catalogue/videosite.js';
import clipsite from './catalogue/clipsite.js';
import bizsite from './catalogue/bizsite.js';
import image from './catalogue/image.js';
import trim from './catalogue/trim.js';
import pdfMetadata from './catalogue/pdf-metadata.js';

/** Every capability the service declares, in the order discovery lists them. */
export const catalogue: CapabilityDef[] = [...search, ...web, mapSite, batchScrape, ...transcript, ...extract, ...documents, ...code, ...videosite, ...clipsite, ...bizsite, ...image, ...trim, ...pdfMetadata];

export * from './catalogue/web.js';
export * from './catalogue/web-batch.js';
export * from './catalogue/web-map.js';
export * from './catalogue/web-paths.js';
export * from './catalogue/documents.js';
export * from './catalogue/code.js';
export * from './catalogue/search.js';
export * from './catalogue/transcript.js';
export * from './catalogue/videosite.js';
export * from './catalogue/extract.js';
export * from './catalogue/image.js';
export * from './catalogue/clipsite.js';
export * from './catalogue/bizsite.js';
export * from './catalogue/common.js';
export * from './catalogue/trim.js';
export * from './catalogue/pdf-metadata.js';
export * from './catalogue/location-check.js';
