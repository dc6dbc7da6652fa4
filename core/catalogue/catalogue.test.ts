/**
 * The catalogue as the registry sees it: every capability id of spec §4.10 is declared, none of
 * them is v1-only, and the short aliases resolve. It lives beside the catalogue, not the registry,
 * so the engine's own tests never load the catalogue (issue 29).
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { definePlugin } from '../sdk.js';
import { pluginHarness, type PluginHarness } from '../testing/index.js';

let h: PluginHarness;
before(async () => {
  // The harness registers the catalogue beside the plugin it is given; this one adds nothing.
  h = await pluginHarness(definePlugin({ id: 'probe', apiVersion: 1, title: 'Probe', summary: 'Adds nothing.' }));
});
after(() => h.close());

it('the catalogue declares all 13 capability ids of spec §4.10, each visible on v2', () => {
  for (const id of ['engine_search', 'search_news', 'search_places', 'get_engine_reviews', 'crawl_site', 'screenshot', 'extract_web', 'extract_document', 'extract_image', 'extract_audio', 'extract_video', 'scrape_page', 'get_videosite_transcript']) {
    assert.ok(h.registry.capability(id), id);
    assert.notEqual(h.registry.capability(id)!.def.visibility, 'legacy', id);
  }
});

it('the short aliases resolve to their capabilities', () => {
  assert.equal(h.registry.capability('crawl')!.id, 'crawl_site');
  assert.equal(h.registry.capability('extract')!.id, 'extract_web');
});
