/**
 * POST /api/v1/read-pdf-metadata and /write-pdf-metadata (issue 28) through the real server:
 * what poppler and the XMP packet say per file; Info and XMP written in step with the rest of
 * the document untouched; encrypted, protected and non-PDF inputs are free 400s; 5 credits per
 * file read, 20 per file written.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { examplePdfBase64 } from '../core/catalogue.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { pdfOfObjects } from './helpers/hand-pdf.js';

let s: TestServer;
let key: string;
let scratch: string;

const XMP = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" pdfaid:part="2" pdfaid:conformance="B"/>
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Old title</rdf:li></rdf:Alt></dc:title></rdf:Description>
</rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>`;

/** A one-page tagged PDF 1.7 with an Info dictionary and an XMP packet claiming PDF/A-2b. */
function describedPdf(): Buffer {
  const text = 'BT /F1 12 Tf 20 50 Td (Page text stays) Tj ET';
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R /Metadata 6 0 R /MarkInfo << /Marked true >> >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Type /Metadata /Subtype /XML /Length ${Buffer.byteLength(XMP)} >>\nstream\n${XMP}\nendstream`,
    '<< /Title (Old title) /Author (Old author) /Producer (Hand made) /CreationDate (D:20240102030405Z) >>',
  ];
  return pdfOfObjects(objs, 7);
}

async function balance(): Promise<number> {
  return (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
}

async function saved(url: string, name: string): Promise<string> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  const file = join(scratch, name);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

const run = (cmd: string, args: string[]) => execFileSync(cmd, args).toString();
let encrypted: string;
let locked: string;

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'pdf-meta-test-'));
  const plain = join(scratch, 'plain.pdf');
  await writeFile(plain, describedPdf());
  // Owner password only (opens without one) and a user password (does not).
  run('qpdf', ['--encrypt', '', 'owner', '256', '--', plain, join(scratch, 'enc.pdf')]);
  run('qpdf', ['--encrypt', 'user', 'owner', '256', '--', plain, join(scratch, 'locked.pdf')]);
  encrypted = execFileSync('base64', ['-w0', join(scratch, 'enc.pdf')]).toString();
  locked = execFileSync('base64', ['-w0', join(scratch, 'locked.pdf')]).toString();
  s = await startServer({ serviceConfig: pluginsConfig(['pdf_metadata']) });
  key = (await s.createKey({ credits: 1000 })).key;
});

after(async () => {
  await s?.close();
  await rm(scratch, { recursive: true, force: true });
});

test('read: one entry per file with Info, facts and the PDF/A claim; 5 credits a file', async () => {
  const start = await balance();
  const res = await s.call('POST', '/api/v1/read-pdf-metadata', { key, body: { inputMethod: 'base64', files: [describedPdf().toString('base64'), examplePdfBase64(), encrypted] } });
  assert.equal(res.status, 200, res.text);
  const [described, bare, enc] = res.json.files;
  assert.deepEqual(
    { ...described, CreationDate: described.CreationDate?.slice(0, 10) },
    { Title: 'Old title', Author: 'Old author', Subject: null, Keywords: null, Creator: null, Producer: 'Hand made', CreationDate: '2024-01-02', ModDate: null, pageCount: 1, pdfVersion: '1.7', encrypted: false, tagged: true, pdfaPart: 2, pdfaConformance: 'B' },
  );
  assert.equal(bare.Title, null);
  assert.equal(bare.pdfVersion, '1.4');
  assert.equal(bare.tagged, false);
  assert.equal(bare.pdfaPart, null);
  assert.equal(enc.encrypted, true);
  assert.equal(enc.Title, 'Old title');
  assert.equal(res.headers['x-credits-charged'], '15');
  assert.equal(await balance(), start - 15);
});

test('write: Info and XMP set in step, the PDF/A claim and the page kept; 20 credits', async () => {
  const start = await balance();
  const res = await s.call('POST', '/api/v1/write-pdf-metadata', {
    key,
    body: { inputMethod: 'base64', files: [describedPdf().toString('base64')], metadata: { Title: 'Grüße 東京 & <co>', Author: 'Ana', Keywords: 'a, b' } },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(Object.keys(res.json), ['url']);
  const file = await saved(res.json.url, 'written.pdf');
  const info = run('pdfinfo', ['-enc', 'UTF-8', file]);
  assert.match(info, /^Title:\s+Grüße 東京 & <co>$/m);
  assert.match(info, /^Author:\s+Ana$/m);
  assert.match(info, /^Keywords:\s+a, b$/m);
  assert.match(info, /^Producer:\s+Hand made$/m);
  const xmp = run('pdfinfo', ['-meta', file]);
  assert.match(xmp, /Grüße 東京 &amp; &lt;co&gt;/);
  assert.match(xmp, /<rdf:li>Ana<\/rdf:li>/);
  assert.doesNotMatch(xmp, /Old title/);
  assert.match(xmp, /pdfaid:part="2"/);
  assert.match(run('pdftotext', [file, '-']), /Page text stays/);
  assert.match(run('qpdf', ['--check', file]), /No syntax or stream encoding errors/);
  assert.equal(res.headers['x-credits-charged'], '20');
  assert.equal(await balance(), start - 20);
});

test('write: a PDF with no Info and no XMP gets both; several files answer urls', async () => {
  const res = await s.call('POST', '/api/v1/write-pdf-metadata', { key, body: { inputMethod: 'base64', files: [examplePdfBase64(), examplePdfBase64()], metadata: { Subject: 'Quarterly' } } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.urls.length, 2);
  assert.equal(res.headers['x-credits-charged'], '40');
  const file = await saved(res.json.urls[1], 'second.pdf');
  assert.match(run('pdfinfo', [file]), /^Subject:\s+Quarterly$/m);
  assert.match(run('pdfinfo', ['-meta', file]), /<dc:description><rdf:Alt><rdf:li xml:lang="x-default">Quarterly/);
});

test('bad files and bad metadata are free 400s', async () => {
  const start = await balance();
  const cases: [string, unknown, RegExp][] = [
    ['/api/v1/read-pdf-metadata', { inputMethod: 'base64', files: [Buffer.from('hello').toString('base64')] }, /'files\[0\]' is not a PDF\./],
    ['/api/v1/read-pdf-metadata', { inputMethod: 'base64', files: [locked] }, /'files\[0\]' is password-protected\./],
    ['/api/v1/read-pdf-metadata', { inputMethod: 'url', files: ['nope'] }, /must be an http or https URL/],
    ['/api/v1/write-pdf-metadata', { inputMethod: 'base64', files: [encrypted], metadata: { Title: 'x' } }, /'files\[0\]' is encrypted: its metadata cannot be rewritten\./],
    ['/api/v1/write-pdf-metadata', { inputMethod: 'base64', files: [examplePdfBase64()], metadata: {} }, /'metadata' must set at least one of/],
    ['/api/v1/write-pdf-metadata', { inputMethod: 'base64', files: [examplePdfBase64()], metadata: { Colour: 'x' } }, /'metadata' parameter is required and must be an object/],
  ];
  for (const [path, body, message] of cases) {
    const res = await s.call('POST', path, { key, body });
    assert.equal(res.status, 400, `${path} ${res.text}`);
    assert.match(res.json.error, message);
  }
  assert.equal(await balance(), start);
});

test('the new routes are MCP tools: listed with their price and callable', async () => {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new Client({ name: 'pdf-meta-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  try {
    const tools = (await client.listTools()).tools;
    const read = tools.find((t) => t.name === 'read_pdf_metadata');
    assert.ok(read && tools.some((t) => t.name === 'write_pdf_metadata'), tools.map((t) => t.name).join(', '));
    const out = await client.callTool({ name: 'read_pdf_metadata', arguments: { inputMethod: 'base64', files: [examplePdfBase64()] } });
    assert.equal(out.isError ?? false, false, JSON.stringify(out));
    assert.equal((out.structuredContent as any).files[0].pageCount, 1);
  } finally {
    await client.close();
  }
});
