/** The one visibility rule: what each lane offers, and what a key sees of it. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Access } from './access.js';
import { laneTables, offeredIn, providerVisibleIn, visibleIn } from './visibility.js';
import type { RegisteredCapability, RegisteredEndpoint, RegisteredPlugin } from '../registry/types.js';

function plugin(id: string): RegisteredPlugin {
  return { id, def: {}, config: {}, configured: true, missing: [], state: undefined, endpoints: [] } as unknown as RegisteredPlugin;
}
function endpoint(p: RegisteredPlugin, op: string, visibility: 'public' | 'legacy', capabilities: string[] = []): RegisteredEndpoint {
  const ep = { id: `${p.id}.${op}`, plugin: p, def: {}, capabilities, visibility } as unknown as RegisteredEndpoint;
  p.endpoints.push(ep);
  return ep;
}
function capability(id: string, visibility: 'public' | 'legacy' | undefined, providers: RegisteredEndpoint[], aliases?: string[]): RegisteredCapability {
  return { id, def: { visibility, aliases }, providers: providers.map((e) => ({ plugin: e.plugin, endpoint: e, impl: {} })) } as unknown as RegisteredCapability;
}

const a = plugin('search_a');
const news = endpoint(a, 'news', 'public', ['search_news']);
const images = endpoint(a, 'images', 'public');
const c = plugin('code_a');
const js = endpoint(c, 'js', 'legacy', ['run_js_code']);
const creator = plugin('creator_a');
const profile = endpoint(creator, 'profile', 'legacy');
const searchNews = capability('search_news', undefined, [news]);
const runJs = capability('run_js_code', 'legacy', [js]);
const crawl = capability('crawl_site', undefined, [], ['crawl']);
const tables = laneTables([{ target: 'capability:run_js_code' }, { target: 'endpoint:creator_a.profile' }, { target: 'capability:crawl' }]);

describe('offeredIn', () => {
  it('v2 and the console offer public targets only', () => {
    for (const lane of ['v2', 'console'] as const) {
      assert.deepEqual([searchNews, runJs, news, js, profile].map((t) => offeredIn(lane, t, tables)), [true, false, true, false, false], lane);
    }
  });
  it('v1 offers what its table names, a capability also by an alias', () => {
    assert.deepEqual([searchNews, runJs, crawl, profile, news].map((t) => offeredIn('v1', t, tables)), [false, true, true, true, false]);
  });
  it('MCP offers every capability, public endpoints and the endpoints a v1 row runs', () => {
    assert.deepEqual([searchNews, runJs, news, js, profile].map((t) => offeredIn('mcp', t, tables)), [true, true, true, false, true]);
    assert.equal(offeredIn('mcp', profile), false, 'without the v1 table, a legacy endpoint is not offered');
  });
  it('the jobs worker runs whatever resolves', () => {
    assert.deepEqual([searchNews, runJs, js, profile].map((t) => offeredIn('jobs', t)), [true, true, true, true]);
  });
  it('takes a resolved target as well as a registry entry', () => {
    assert.equal(offeredIn('v2', { type: 'capability', capability: runJs }), false);
    assert.equal(offeredIn('v2', { type: 'endpoint', endpoint: news }), true);
  });
});

describe('visibleIn', () => {
  it('an offered target is visible when the key may use it', () => {
    const open = new Access(undefined, undefined);
    const noSearch = new Access({ block: ['search_a'] }, undefined);
    assert.equal(visibleIn('v2', searchNews, open), true);
    assert.equal(visibleIn('v2', searchNews, noSearch), false);
    assert.equal(visibleIn('v2', news, noSearch), false);
    assert.equal(visibleIn('v2', runJs, open), false, 'not offered, whatever the policy');
    assert.equal(visibleIn('mcp', runJs, open, tables), true);
    assert.equal(visibleIn('mcp', runJs, new Access({ block: ['run_js_code'] }, undefined), tables), false);
  });
  it('a provider is visible through any visible endpoint', () => {
    const open = new Access(undefined, undefined);
    assert.equal(providerVisibleIn('v2', a, open), true);
    assert.equal(providerVisibleIn('v2', a, new Access({ block: ['search_a.news', 'search_a.images'] }, undefined)), false);
    assert.equal(providerVisibleIn('v2', c, open), false);
    assert.equal(providerVisibleIn('mcp', creator, open, tables), true);
    assert.ok(images);
  });
});
