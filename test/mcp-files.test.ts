/**
 * Produced files through the MCP lane (issue 17 §4), with the SDK's client against the real
 * server: a job that stores a file answers our signed download URL, the file as a `resource_link`,
 * and a small image (≤ 1 MB) inline; larger images and PDFs are links only, and a URL that merely
 * looks like one of ours (bad signature) is not offered.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Type, definePlugin, defineCapability, defineEndpoint, flat } from '../core/sdk.js';
import { startServer, type TestServer } from './helpers/server.js';
import { testServiceConfig } from './fixtures/test-plugins.js';

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const BIG = Buffer.alloc(1_100_000, 7);
const PDF = Buffer.from('%PDF-1.7\n%test\n');
const FORGED = `http://127.0.0.1:9/files/${'A'.repeat(32)}?expires=9999999999&sig=${'0'.repeat(64)}`;

const FileInput = Type.Object({ kind: Type.Union([Type.Literal('small_png'), Type.Literal('big_png'), Type.Literal('pdf')], { description: 'Which file to produce.' }) });
const FileOutput = Type.Object({
  url: Type.String({ description: 'Signed download URL.' }),
  mentioned: Type.String({ description: 'A URL that looks signed but is not ours.' }),
});

const files = definePlugin({
  id: 'test_files',
  apiVersion: 1,
  title: 'File maker',
  summary: 'Stores a file and answers its signed URL.',
  capabilities: [defineCapability({ id: 'test_make_file', title: 'Make a file', summary: 'Produces a small PNG, a large PNG or a PDF.', input: FileInput, output: FileOutput, cost: flat(5) })],
  endpoints: [
    defineEndpoint({
      operation: 'make',
      title: 'Make a file',
      summary: 'Stores the file in the file store.',
      input: FileInput,
      output: FileOutput,
      cost: flat(5),
      async run(input, ctx) {
        const [bytes, contentType, extension] = input.kind === 'pdf' ? [PDF, 'application/pdf', 'pdf'] : [input.kind === 'big_png' ? BIG : PNG, 'image/png', 'png'];
        const stored = await ctx.engines.files.put(bytes, { contentType, extension });
        return { url: stored.url, mentioned: FORGED };
      },
    }),
  ],
  implements: [{ capability: 'test_make_file', endpoint: 'make' }],
});

let s: TestServer;
let client: Client;

async function make(kind: string): Promise<CallToolResult> {
  return (await client.callTool({ name: 'test_make_file', arguments: { kind } })) as CallToolResult;
}

before(async () => {
  const t = testServiceConfig();
  s = await startServer({ serviceConfig: { ...t, plugins: { ...t.plugins, test_files: async () => ({ default: files }) } } });
  const { key } = await s.createKey({ credits: 100 });
  client = new Client({ name: 'files-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
});

after(async () => {
  await client.close();
  await s.close();
});

describe('MCP produced files', () => {
  it('a small image: the signed URL, a resource link and the image itself, the same bytes as the download', async () => {
    const r = await make('small_png');
    const url = (r.structuredContent as { url: string }).url;
    assert.match(url, /\/files\/[A-Za-z0-9_-]+\?expires=\d+&sig=[0-9a-f]{64}$/);
    assert.deepEqual(r.content.map((c) => c.type), ['text', 'resource_link', 'image']);
    const link = r.content[1] as { uri: string; mimeType: string; name: string; size: number };
    assert.deepEqual([link.uri, link.mimeType, link.size], [url, 'image/png', PNG.length]);
    assert.match(link.name, /\.png$/);
    const image = r.content[2] as { data: string; mimeType: string };
    assert.equal(image.mimeType, 'image/png');
    const downloaded = Buffer.from(await (await fetch(url)).arrayBuffer());
    assert.deepEqual(Buffer.from(image.data, 'base64'), downloaded);
    assert.deepEqual(downloaded, PNG);
  });

  it('an image over 1 MB and a PDF: links only; a forged URL in the output is never offered', async () => {
    const big = await make('big_png');
    assert.deepEqual(big.content.map((c) => c.type), ['text', 'resource_link']);
    assert.equal((big.content[1] as { size: number }).size, BIG.length);
    const pdf = await make('pdf');
    assert.deepEqual(pdf.content.map((c) => c.type), ['text', 'resource_link']);
    assert.equal((pdf.content[1] as { mimeType: string }).mimeType, 'application/pdf');
    for (const r of [big, pdf]) assert.ok(!r.content.some((c) => c.type === 'resource_link' && (c as { uri: string }).uri === FORGED));
  });
});
