/**
 * What an agent is handed by `tools/list` (issue 28), with every provider of the deployment
 * configured: at most 80 KB in all, behaviour hints on every tool, and no references to sections
 * of the service's specification anywhere in names, descriptions or schemas.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';

/** A key for every provider that needs one (values are never used: nothing is called). */
const EVERY_PROVIDER = Object.fromEntries(
  ['ANSWER_A', 'BROWSER_A', 'CRAWLER_A', 'CREATOR_A', 'IMAGE_A', 'SEARCH_A', 'SEO_A', 'SHOT_A', 'SPIDER_A', 'TRANSCRIPT_A'].map((p) => [`${p}_API_KEY`, 'k']).concat([['MODEL_API_KEY', 'k']]),
);

describe('MCP tools/list', () => {
  let s: TestServer;
  let raw = '';
  let tools: any[] = [];
  /** The server's first two MCP requests, sent at once: the tool catalogue is built by the first. */
  let firstTwo: string[] = [];
  before(async () => {
    s = await startServer({ env: EVERY_PROVIDER });
    const { key } = await s.createKey({ credits: 10 });
    const list = async () => {
      const res = await fetch(`${s.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      const line = (await res.text()).split('\n').find((l) => l.startsWith('data: '))!;
      return JSON.stringify(JSON.parse(line.slice(6)).result);
    };
    firstTwo = await Promise.all([list(), list()]);
    raw = await list();
    tools = JSON.parse(raw).tools;
  });
  after(() => s?.close());

  it('hands concurrent first requests the same whole list as later ones', () => {
    assert.deepEqual(firstTwo, [raw, raw]);
  });

  it('lists every tool of a fully configured deployment in at most 80 KB', () => {
    assert.ok(tools.length >= 50, `tools: ${tools.length}`);
    const bytes = Buffer.byteLength(raw);
    assert.ok(bytes <= 80 * 1024, `tools/list is ${bytes} bytes`);
  });

  it('gives every tool all four behaviour hints, chosen per tool', () => {
    for (const t of tools) {
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) assert.equal(typeof t.annotations?.[hint], 'boolean', `${t.name}.${hint}`);
      assert.equal(t.annotations.destructiveHint, false, t.name);
    }
    const by = new Map(tools.map((t) => [t.name, t.annotations]));
    assert.equal(by.get('run_js_code').openWorldHint, false);
    assert.equal(by.get('run_python_code').openWorldHint, false);
    assert.equal(by.get('scrape_page').openWorldHint, true);
    assert.equal(by.get('crawl_site').idempotentHint, false, 'a paid call spends credits again');
    assert.equal(by.get('convert_to_pdf_formats').idempotentHint, true, 'free');
  });

  it('names no specification section anywhere', () => {
    assert.doesNotMatch(raw, /§/);
    assert.doesNotMatch(raw, /\bspec\b/i);
  });

  it('says each thing once in an input schema: no body variant repeats its parent, no map in TypeBox spelling', () => {
    const repeats: string[] = [];
    const visit = (v: any, path: string) => {
      if (!v || typeof v !== 'object') return;
      for (const k of ['oneOf', 'anyOf']) {
        if (!Array.isArray(v[k]) || !v.properties) continue;
        for (const [i, m] of v[k].entries()) {
          for (const [name, s] of Object.entries(m?.properties ?? {})) if (JSON.stringify(s) === JSON.stringify(v.properties[name])) repeats.push(`${path}.${k}[${i}].${name}`);
          if (m?.type !== undefined && m.type === v.type) repeats.push(`${path}.${k}[${i}].type`);
        }
      }
      if (v.patternProperties?.['^(.*)$']) repeats.push(`${path}.patternProperties`);
      for (const [k, x] of Object.entries(v)) visit(x, `${path}.${k}`);
    };
    for (const t of tools) visit(t.inputSchema, t.name);
    assert.deepEqual(repeats, []);
  });

  it('keeps each input schema usable: shared parts are local $defs that exist', () => {
    for (const t of tools) {
      const text = JSON.stringify(t.inputSchema) + JSON.stringify(t.outputSchema ?? {});
      for (const [, name] of text.matchAll(/"\$ref":"#\/\$defs\/(\w+)"/g)) {
        const defs = { ...(t.inputSchema.$defs ?? {}), ...(t.outputSchema?.$defs ?? {}) };
        assert.ok(name! in defs, `${t.name}: $defs/${name}`);
      }
    }
  });
});
