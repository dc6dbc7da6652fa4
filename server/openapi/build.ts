/**
 * OpenAPI 3.1 documents generated from the registry's TypeBox schemas (never written by hand):
 * the direct lane declares `info.version` 1.0.0 (spec §9.3), the unified lane its own. The same
 * schemas that validate requests describe them here; the hand-written parts around them
 * (envelopes, discovery, account, admin) describe every field too.
 */
export { buildV1Document } from './v1.js';
export { buildV2Document } from './v2.js';
