/**
 * A bounded, seeded HTTP fuzz of every documented route (issue 24 "Done when"): the routes and
 * their body schemas are read from the running server's `/openapi/v1.json` and `/openapi/v2.json`;
 * each gets hostile bodies (deep nesting, a wrong type in every field, `null`, arrays for objects
 * and objects for arrays, huge strings, negative and huge numbers, unicode, `__proto__` and
 * `constructor` keys, an empty body, invalid JSON) and hostile query strings. No answer may be a
 * 500 INTERNAL (`An unexpected server error occurred.` / code `INTERNAL` / JSON-RPC −32603); a
 * 5xx that names an unconfigured or failing upstream is an honest answer. Loopback only: the
 * deployment's providers have no keys, the video site points at a closed loopback port and the
 * SSRF guard keeps user URLs off the loopback.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';

/** Mutations per route drawn from the full set (fields × hostile values), plus every whole-body case. */
const PER_ROUTE = 12;
/** Per target of `/api/v2/run` (one documented body per capability and endpoint). */
const PER_RUN_TARGET = 4;
const CONCURRENCY = 8;

/** mulberry32: a small seeded generator, so a failure reproduces run after run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Schema = Record<string, any>;
type Doc = { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, Schema> } };

function deref(doc: Doc, s: Schema | undefined): Schema {
  let cur = s ?? {};
  for (let i = 0; i < 20 && typeof cur.$ref === 'string'; i++) cur = doc.components?.schemas?.[cur.$ref.split('/').pop()!] ?? {};
  return cur;
}

/** A value the schema accepts, as far as a quick reading can tell (the base each mutation changes one field of). */
function sample(doc: Doc, raw: Schema | undefined, depth = 0): unknown {
  const s = deref(doc, raw);
  if (depth > 6) return undefined;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ('default' in s) return s.default;
  const alt = s.anyOf ?? s.oneOf;
  if (Array.isArray(alt)) return sample(doc, alt.find((a: Schema) => deref(doc, a).type !== 'null') ?? alt[0], depth + 1);
  switch (s.type) {
    case 'string':
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(doc, s.items, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (const name of s.required ?? []) out[name] = sample(doc, s.properties?.[name], depth + 1);
      return out;
    }
  }
}

/** JSON text of an object whose own key is `__proto__` (an object literal would set the prototype instead). */
const PROTO = '{"__proto__":{"polluted":true,"isAdmin":true},"constructor":{"prototype":{"polluted":true}}}';

/** Hostile field values; each is JSON text. */
const FIELD_VALUES = [
  'null',
  '[]',
  '{}',
  '""',
  '" "',
  JSON.stringify('A'.repeat(300_000)),
  '-1',
  '-1e308',
  '1e308',
  '9007199254740993',
  '0.5',
  'true',
  JSON.stringify('\u0000\ud800\u202e😀 ﷽ \u200b'),
  PROTO,
  '[' + '{"a":['.repeat(30) + ']}'.repeat(30) + ']',
  '["a",1,null,{}]',
  JSON.stringify('http://127.0.0.1:1/' + 'x'.repeat(50)),
  JSON.stringify('data:text/html;base64,PGgxPng8L2gxPg=='),
];

/** Whole bodies; `undefined` sends no body at all. */
const BODIES: (string | undefined)[] = [
  undefined,
  '',
  'null',
  '[]',
  '"s"',
  '1',
  '{}',
  PROTO,
  '{"a":',
  '{"a":1,}',
  '\u0000',
  '['.repeat(10_000) + ']'.repeat(10_000),
  '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
  '{"url":' + '['.repeat(10_000) + ']'.repeat(10_000) + ',"input":' + '{"b":'.repeat(5_000) + '1' + '}'.repeat(5_000) + '}',
  '{"a":'.repeat(63) + '1' + '}'.repeat(63),
];

const QUERY_VALUES = ['', '-1', '99999999999999999999', 'x'.repeat(5000), '%00%ff', '__proto__', '[]', 'null', '%E2%80%AE😀'];

interface Case {
  method: string;
  path: string;
  body?: string;
  auth: 'key' | 'admin';
  accept?: string;
}

function fill(path: string, id: string): string {
  return path.replace(/\{[^}]+\}/g, id);
}

/** The cases of one documented operation. */
function casesOf(doc: Doc, path: string, method: string, op: any, next: () => number, ids: { keyId: string }): Case[] {
  const auth: Case['auth'] = path.startsWith('/admin') || path === '/metrics' ? 'admin' : 'key';
  const url = fill(path, path.startsWith('/admin/keys') ? ids.keyId : 'f_' + 'z'.repeat(20));
  const accept = path === '/mcp' ? 'application/json, text/event-stream' : undefined;
  const out: Case[] = [];
  const params: string[] = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
  if (method === 'get' || method === 'delete') {
    out.push({ method, path: url, auth, accept });
    for (const name of params) for (const v of QUERY_VALUES) out.push({ method, path: `${url}?${name}=${encodeURIComponent(v)}&${name}=2`, auth, accept });
    return out;
  }
  const schema = op.requestBody?.content?.['application/json']?.schema;
  // v2 run documents one body per target (oneOf): each is a route of its own for the fuzz.
  const variants: Schema[] = schema?.oneOf ?? [schema ?? {}];
  for (const v of variants) {
    // Documented examples name public sites: every URL in a base body points at a closed loopback
    // port instead, so nothing leaves the machine even where a network exists.
    const base = JSON.parse(JSON.stringify(sample(doc, v) ?? {}).replace(/https?:\/\/[^"\s\\]+/g, 'http://127.0.0.1:1/fuzz')) as Record<string, unknown>;
    const mutations: Case[] = [];
    const top = deref(doc, v);
    const inner = top.properties?.input ? deref(doc, top.properties.input) : undefined;
    // Fields of the body, and of `input` for a v2 run: `[where, field]`.
    // Plus fields a schema may not declare but handlers read (`url`, `urls`, `input`, `options`).
    const withExtras = (props: string[]) => [...new Set([...props, 'url', 'urls', 'input', 'options'])];
    const fields: [string | undefined, string][] = withExtras(Object.keys(top.properties ?? {})).map((f) => [undefined, f]);
    if (inner) for (const f of withExtras(Object.keys(inner.properties ?? {}))) fields.push(['input', f]);
    for (const [where, field] of fields) {
      for (const value of FIELD_VALUES) {
        const marker = '"__FUZZ__"';
        const copy = structuredClone(base ?? {}) as Record<string, any>;
        if (where) copy[where] = { ...(copy[where] ?? {}), [field]: '__FUZZ__' };
        else copy[field] = '__FUZZ__';
        mutations.push({ method, path: url, auth, accept, body: JSON.stringify(copy).replace(marker, value) });
      }
    }
    // Seeded pick: the same subset every run.
    for (let i = mutations.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [mutations[i], mutations[j]] = [mutations[j]!, mutations[i]!];
    }
    out.push({ method, path: url, auth, accept, body: JSON.stringify(base ?? {}) }, ...mutations.slice(0, variants.length > 1 ? PER_RUN_TARGET : PER_ROUTE));
  }
  for (const body of BODIES) out.push({ method, path: url, auth, accept, body });
  return out;
}

/** Why an answer is a 500 INTERNAL, or undefined. */
function internal(status: number, text: string): string | undefined {
  if (/An unexpected server error occurred|"code":"INTERNAL"|"code":-32603|Internal server error/i.test(text)) return text.slice(0, 300);
  // Other 500s are the catalogue's own: an unconfigured provider, or the caller's code failing (spec's {name, value, traceback}).
  if (status === 500 && !/not configured|contact support|"error":\{"name"|CODE_EXECUTION_ERROR/i.test(text)) return `500 ${text.slice(0, 300)}`;
  return undefined;
}

describe('OpenAPI-driven fuzz of every route', () => {
  let s: TestServer;
  let key: string;
  let keyId: string;
  before(async () => {
    // No hold on refused large bodies: every hostile case reaches its route instead of a 429 BUSY;
    // no pace on its 404s: the fuzz checks what each answer is, not when it comes.
    s = await startServer({ env: { VIDEOSITE_NATIVE_BASE_URL: 'http://127.0.0.1:9', ALLOW_PRIVATE_NETWORK: undefined, KEY_REFUSAL_HOLD_MS: '0', KEY_REFUSALS_PER_SECOND: '0' } });
    ({ key } = await s.createKey({ credits: 10_000_000, rateLimitPerMinute: 1_000_000 }));
    ({ id: keyId } = await s.createKey({ credits: 0, name: 'fuzz target' }));
  });
  after(() => s?.close());

  it('answers no hostile request with a 500 INTERNAL', async () => {
    const next = rng(24);
    const cases: Case[] = [];
    for (const lane of ['v1', 'v2']) {
      const doc = (await s.call('GET', `/openapi/${lane}.json`)).json as Doc;
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
          // Deleting our own key or draining would end the run, not test it.
          if (method === 'delete' && path.startsWith('/admin/keys')) continue;
          cases.push(...casesOf(doc, path, method, op, next, { keyId }));
        }
      }
    }
    assert.ok(cases.length > 1000, `cases: ${cases.length}`);
    const failures: string[] = [];
    const spent = new Map<string, number>();
    let i = 0;
    const worker = async () => {
      while (i < cases.length) {
        const c = cases[i++]!;
        const headers: Record<string, string> = { authorization: `Bearer ${c.auth === 'admin' ? s.adminToken : key}` };
        if (c.accept) headers.accept = c.accept;
        if (c.body !== undefined) headers['content-type'] = 'application/json';
        let status = 0;
        let text = '';
        const t0 = Date.now();
        try {
          const res = await fetch(s.url + c.path, { method: c.method.toUpperCase(), headers, body: c.body });
          status = res.status;
          text = await res.text();
        } catch (err) {
          failures.push(`${c.method} ${c.path} ${String(c.body).slice(0, 120)} → no answer: ${(err as Error).message}`);
          continue;
        }
        spent.set(c.path.split('?')[0]!, (spent.get(c.path.split('?')[0]!) ?? 0) + Date.now() - t0);
        const why = internal(status, text);
        if (why) failures.push(`${c.method.toUpperCase()} ${c.path} ${String(c.body).slice(0, 160)} → ${why}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    if (process.env.FUZZ_TIMES) console.log([...spent].sort((a, b) => b[1] - a[1]).slice(0, 15));
    assert.deepEqual(failures, [], `${failures.length} of ${cases.length} requests got a 500 INTERNAL`);
    // The service is still up and answering after the run.
    assert.equal((await s.call('GET', '/healthz')).status, 200);
  });

  it('answers no hostile MCP tool call with an internal error', async () => {
    const rpc = async (body: string) => {
      const res = await fetch(`${s.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
      const text = await res.text();
      return { status: res.status, text };
    };
    const listed = await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    const tools = JSON.parse(listed.text.split('\n').find((l) => l.startsWith('data: '))!.slice(6)).result.tools as { name: string; inputSchema: Schema }[];
    const next = rng(28);
    const bodies: string[] = [];
    for (const t of tools) {
      const fields = [...new Set([...Object.keys(t.inputSchema.properties ?? {}), 'url'])];
      const picks = Array.from({ length: 6 }, () => [fields[Math.floor(next() * fields.length)]!, FIELD_VALUES[Math.floor(next() * FIELD_VALUES.length)]!] as const);
      for (const [field, value] of picks) bodies.push(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":${JSON.stringify(t.name)},"arguments":{${JSON.stringify(field)}:${value}}}}`);
      for (const args of ['[]', 'null', '"s"', '1', PROTO]) bodies.push(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":${JSON.stringify(t.name)},"arguments":${args}}}`);
    }
    const failures: string[] = [];
    let i = 0;
    const worker = async () => {
      while (i < bodies.length) {
        const body = bodies[i++]!;
        const { status, text } = await rpc(body);
        const why = internal(status, text) ?? (/"code":"INTERNAL"/.test(text) ? text.slice(0, 300) : undefined);
        if (why) failures.push(`${body.slice(0, 200)} → ${why}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    assert.deepEqual(failures, [], `${failures.length} of ${bodies.length} tool calls failed internally`);
  });
});
