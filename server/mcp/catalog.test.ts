/**
 * The tool catalogue over the whole deployment (plugins.config.ts, every provider given a
 * setting so all are configured): every tool is what MCP clients accept — a valid name, object
 * input and output schemas that the SDK's own Ajv compiles, a cost in the description — and the
 * catalogue holds one tool per capability (v1-only ones included) and per endpoint that is a job
 * of its own, while a key policy filters it as v2 discovery filters.
 */
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { buildRegistry, configEnv } from '../../core/registry/build.js';
import type { Registry } from '../../core/registry/registry.js';
import type { Engines } from '../../core/engines/types.js';
import type { ConfigField } from '../../core/plugin/types.js';
import deployment from '../../plugins.config.js';
import { LEGACY_ROUTES, v1EndpointIds } from '../legacy-routes.js';
import { laneTables } from '../../core/policy/visibility.js';
import { ToolCatalog } from './catalog.js';
import { mcpToolsTable } from './tools-table.js';

const log = { debug() {}, info() {}, warn() {}, error() {} };
const v1Endpoints = v1EndpointIds(LEGACY_ROUTES);
let registry: Registry;
let catalog: ToolCatalog;

before(async () => {
  const env: Record<string, string> = {};
  for (const [id, load] of Object.entries(deployment.plugins)) {
    const def = (await load()).default;
    for (const [name, field] of Object.entries((def.config ?? {}) as Record<string, ConfigField>)) if (field.required) env[configEnv(id, name, field)] = 'test-value';
  }
  // Listing tools runs nothing: plugin setup gets engines that accept any use and do nothing.
  const inert: any = new Proxy(function inert() {}, { get: (_t, p) => (p === 'then' ? undefined : inert), apply: () => inert });
  registry = await buildRegistry(deployment, { env: { ...env, DOCUMENTS_PREWARM: 'false' }, engines: inert as Engines, log, legacyTargets: LEGACY_ROUTES });
  catalog = new ToolCatalog(registry, laneTables(LEGACY_ROUTES));
});

describe('ToolCatalog over the deployment', () => {
  it('offers every capability and every endpoint that is a job of its own, all valid MCP tools', () => {
    const tools = catalog.visible(undefined).map((e) => e.tool);
    const names = tools.map((t) => t.name);
    for (const cap of registry.capabilities.values()) assert.ok(names.includes(cap.id), cap.id);
    for (const ep of registry.endpoints.values()) {
      const own = ep.capabilities.length === 0 || v1Endpoints.has(ep.id);
      assert.equal(names.includes(ep.id.replace('.', '__')), own, ep.id);
    }
    assert.equal(new Set(names).size, names.length);
    assert.ok(ListToolsResultSchema.safeParse({ tools }).success);
    const ajv = new AjvJsonSchemaValidator();
    for (const t of tools) {
      assert.match(t.name, /^[A-Za-z0-9_-]{1,64}$/, t.name);
      assert.match(t.description ?? '', /\n\nCost: [^\n]+$/, t.name);
      assert.equal(t.inputSchema.type, 'object', t.name);
      ajv.getValidator(t.inputSchema);
      if (t.outputSchema) ajv.getValidator(t.outputSchema);
      assert.ok(!/"format":"/.test(JSON.stringify(t.outputSchema ?? {})), `${t.name}: output formats are left to the server`);
    }
  });

  it('documents every tool with its cost for the README', () => {
    const table = mcpToolsTable(registry).split('\n');
    assert.equal(table.length, 2 + catalog.all().length);
    assert.ok(table.includes('| `scrape_page` | capability | 10 credits; +5 per page read by OCR when the URL serves a scanned document; +100 when changeTracking json mode extracts. |'));
    assert.ok(table.includes('| `run_js_code` | v1-only job | 50 credits per call. |'));
    assert.ok(table.includes('| `creator_a__clipsite_profile` | endpoint `creator_a.clipsite_profile` | 10 credits per call. |'));
  });

  it('filters by key policy with the same decisions as execution: blocked providers and capabilities disappear', () => {
    const all = catalog.visible(undefined).map((e) => e.name);
    const noCode = catalog.visible({ block: ['code'] }).map((e) => e.name);
    assert.ok(all.includes('run_js_code') && !noCode.includes('run_js_code') && !noCode.includes('run_python_code'));
    const onlySearch = catalog.visible({ allow: ['search_a'], block: ['*'] }).map((e) => e.name);
    assert.ok(onlySearch.includes('search_news') && onlySearch.includes('search_a__images'));
    assert.ok(!onlySearch.includes('scrape_page') && !onlySearch.includes('convert_to_pdf'));
    const noNews = catalog.visible({ block: ['search_news'] }).map((e) => e.name);
    assert.ok(!noNews.includes('search_news') && noNews.includes('search_places'));
  });
});
