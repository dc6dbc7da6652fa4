/**
 * A large body's base64 files on the other lanes (issue 24): `/api/v2/run` and MCP `tools/call`
 * get the direct lane's file-backed path (the worker that parses the body writes each file field
 * to the request's folder; the serving thread holds a handle, never the string nor the bytes),
 * with the answers, envelopes and credits they always gave.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { decodedFields } from '../core/plugin/predecoded.js';
import { paddedPdf } from './helpers/padded-pdf.js';

/** The JSON-RPC answer of one raw MCP request (the transport answers as an event stream). */
async function mcp(s: TestServer, key: string, message: unknown): Promise<{ status: number; messages: any[] }> {
  const res = await fetch(`${s.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(message) });
  const text = await res.text();
  const events = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  return { status: res.status, messages: events.length > 0 ? events : [JSON.parse(text)] };
}

const toolCall = (name: string, args: unknown, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('a large body\'s files on /api/v2/run and MCP', () => {
  let s: TestServer;
  let key: string;
  const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  const big = paddedPdf('Kept in a file', 90_000).toString('base64');
  const small = paddedPdf('Small one', 10).toString('base64');
  let perFile = 0;
  before(async () => {
    s = await startServer({ env: { JSON_OFF_THREAD_BYTES: '65536', PDF_METADATA_MAX_FILE_MB: '0.15', DOC_TEXT_MAX_FILE_MB: '1' } });
    ({ key } = await s.createKey({ credits: 10_000 }));
    const one = await s.call('POST', '/api/v1/read-pdf-metadata', { key, body: { inputMethod: 'base64', files: [small] } });
    assert.equal(one.status, 200, one.text.slice(0, 300));
    perFile = Number(one.headers['x-credits-charged']);
    assert.ok(perFile > 0);
  });
  after(() => s?.close());

  it('v2 run: the file reaches the tool as a file, the envelope and the charge those of a small body', async () => {
    const run = (input: unknown) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'doc_to_text', input } });
    const expected = await run({ inputMethod: 'base64', file: small });
    assert.equal(expected.status, 200, expected.text.slice(0, 300));
    const fields = decodedFields();
    const start = await credits();
    for (const file of [big, `data:application/pdf;base64,${big}`]) {
      const res = await run({ inputMethod: 'base64', file });
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.equal(res.json.object, 'capability_result');
      assert.match(res.json.data.text, /Kept in a file/);
      assert.deepEqual(Object.keys(res.json.data).sort(), Object.keys(expected.json.data).sort());
      assert.deepEqual({ ...res.json.meta, id: undefined }, { ...expected.json.meta, id: undefined });
    }
    assert.equal(await credits(), start - 2 * expected.json.meta.credits);
    assert.deepEqual(decodedFields(), { ...fields, made: fields.made + 2 }, 'the large files came as files, never read or rebuilt on the serving thread');
  });

  it('v2 run: a large body\'s refusals are a small body\'s, in the envelope, for free', async () => {
    const start = await credits();
    const pairs: [string, unknown, unknown, number][] = [
      ['not a document', { inputMethod: 'base64', file: Buffer.alloc(90_000, 7).toString('base64') }, { inputMethod: 'base64', file: 'BwcHBwcH' }, 400],
      ['pages of the wrong type', { inputMethod: 'base64', file: big, pages: 5 }, { inputMethod: 'base64', file: small, pages: 5 }, 400],
      ['a file over its limit', { inputMethod: 'base64', file: paddedPdf('Too big', 1_100_000).toString('base64') }, undefined, 413],
    ];
    for (const [what, large, smallInput, status] of pairs) {
      const res = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'doc_to_text', input: large } });
      assert.equal(res.status, status, `${what}: ${res.text.slice(0, 300)}`);
      if (!smallInput) {
        assert.deepEqual([res.json.success, res.json.code, res.json.error], [false, 'PAYLOAD_TOO_LARGE', "'file' is larger than the 1 MB limit."], what);
        continue;
      }
      const expected = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'doc_to_text', input: smallInput } });
      assert.equal(expected.status, status, `${what}: ${expected.text.slice(0, 300)}`);
      assert.deepEqual({ ...res.json, requestId: undefined }, { ...expected.json, requestId: undefined }, what);
    }
    assert.equal(await credits(), start);
  });

  it('MCP tools/call (and the discovery run tool): the files reach the tool as files, the result and the charge those of a small body', async () => {
    const fields = decodedFields();
    const start = await credits();
    const call = await mcp(s, key, toolCall('read_pdf_metadata', { inputMethod: 'base64', files: [big, small] }));
    assert.equal(call.status, 200);
    const result = call.messages.at(-1).result;
    assert.equal(result.isError, undefined, JSON.stringify(result).slice(0, 300));
    assert.deepEqual(result.structuredContent.files.map((m: { Title?: string }) => m.Title), ['Kept in a file', 'Small one']);
    assert.equal(result._meta.credits, 2 * perFile);
    const res = await fetch(`${s.url}/mcp?tools=discovery`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(toolCall('run', { type: 'capability', id: 'read_pdf_metadata', input: { inputMethod: 'base64', files: [big] } }, 2)),
    });
    const run = JSON.parse((await res.text()).split('\n').find((l) => l.startsWith('data: '))!.slice(6)).result;
    assert.equal(run.isError, undefined, JSON.stringify(run).slice(0, 300));
    assert.deepEqual(run.structuredContent.files.map((m: { Title?: string }) => m.Title), ['Kept in a file']);
    assert.equal(await credits(), start - 3 * perFile);
    assert.deepEqual(decodedFields(), { ...fields, made: fields.made + 2 }, 'both large files came as files, never read or rebuilt on the serving thread');
  });

  it('MCP tools/call: a large body\'s refusal is a small body\'s tool error, for free', async () => {
    const start = await credits();
    const expected = (await mcp(s, key, toolCall('read_pdf_metadata', { inputMethod: 'base64', files: ['BwcHBwcH'] }))).messages.at(-1).result;
    const res = (await mcp(s, key, toolCall('read_pdf_metadata', { inputMethod: 'base64', files: [Buffer.alloc(90_000, 7).toString('base64')] }))).messages.at(-1).result;
    assert.equal(expected.isError, true);
    assert.deepEqual(res.content, expected.content);
    assert.deepEqual({ ...res._meta, requestId: undefined }, { ...expected._meta, requestId: undefined });
    const tooBig = (await mcp(s, key, toolCall('read_pdf_metadata', { inputMethod: 'base64', files: [paddedPdf('Too big', 200_000).toString('base64')] }))).messages.at(-1).result;
    assert.deepEqual([tooBig.isError, tooBig.content[0].text, tooBig._meta.status], [true, "'files[0]' is larger than the 150 KB limit.", 413]);
    assert.equal(await credits(), start);
  });
});
