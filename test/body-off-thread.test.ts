/**
 * Large JSON bodies (issue 24, the part left after the bounded-work work): admission is decided
 * from the headers before a byte of the body is read, and a body past JSON_OFF_THREAD_BYTES is
 * parsed, and its base64 files decoded, in a worker thread — with the same answers as a small one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startServer, type TestServer } from './helpers/server.js';
import { decodedFields } from '../core/plugin/predecoded.js';
import { paddedPdf } from './helpers/padded-pdf.js';

/** Sends raw HTTP/1.1 `head` (and `body`, if any) and resolves with the answer's status and body. */
function raw(url: string, head: string, body = ''): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.on('data', (d) => {
      received += d.toString();
      const end = received.indexOf('\r\n\r\n');
      const len = /content-length: (\d+)/i.exec(received);
      if (end > 0 && len && received.length >= end + 4 + Number(len[1])) {
        socket.destroy();
        resolve({ status: Number(received.slice(9, 12)), text: received.slice(end + 4) });
      }
    });
    socket.on('error', reject);
    socket.write(head);
    if (body) socket.write(body);
  });
}

describe('large JSON bodies', () => {
  let s: TestServer;
  let key: string;
  const computeJobs = async () => Number(/cia_engine_jobs\{engine="compute"\} (\d+)/.exec((await s.call('GET', '/metrics', { key: s.adminToken })).text)?.[1] ?? 0);
  const credits = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  before(async () => {
    s = await startServer({ env: { JSON_OFF_THREAD_BYTES: '65536', PDF_METADATA_MAX_FILE_MB: '0.15', FILE_BODY_LIMIT_BYTES: String(2 * 1024 * 1024), BODY_BYTES_IN_FLIGHT_MAX: String(3 * 1024 * 1024), BODY_BYTES_PER_KEY_MAX: String(2 * 1024 * 1024) } });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(() => s.close());

  it('a large body is parsed in a worker thread and its base64 files, plain or as a wrapped data: URL, arrive intact', async () => {
    const pdf = paddedPdf('Parsed elsewhere', 90_000);
    const wrapped = 'data:application/pdf;base64,' + pdf.toString('base64').replace(/.{76}/g, '$&\r\n');
    const jobs = await computeJobs();
    const res = await s.call('POST', '/api/v1/read-pdf-metadata', { key, body: { inputMethod: 'base64', files: [pdf.toString('base64'), wrapped, paddedPdf('Small one', 10).toString('base64')] } });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.deepEqual(res.json.files.map((m: { Title?: string }) => m.Title), ['Parsed elsewhere', 'Parsed elsewhere', 'Small one']);
    assert.equal(await computeJobs(), jobs + 1, 'one parse ran in the compute pool');
    // A small body stays on the serving thread.
    const small = await s.call('POST', '/api/v1/read-pdf-metadata', { key, body: { inputMethod: 'base64', files: [paddedPdf('Small one', 10).toString('base64')] } });
    assert.equal(small.status, 200, small.text.slice(0, 300));
    assert.equal(await computeJobs(), jobs + 1);
  });

  it('a large body\'s base64 files reach the route decoded, never as strings on the serving thread, and are charged as a small body\'s', async () => {
    const one = paddedPdf('Small one', 10).toString('base64');
    const small = await s.call('POST', '/api/v1/read-pdf-metadata', { key, body: { inputMethod: 'base64', files: [one] } });
    assert.equal(small.status, 200, small.text.slice(0, 300));
    const perFile = Number(small.headers['x-credits-charged']);
    assert.ok(perFile > 0);
    const pdf = paddedPdf('Kept as bytes', 90_000).toString('base64');
    const fields = decodedFields();
    const before = await credits();
    const res = await s.call('POST', '/api/v1/read-pdf-metadata', { key, body: { inputMethod: 'base64', files: [pdf, 'data:application/pdf;base64,' + pdf, one] } });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.deepEqual(res.json.files.map((m: { Title?: string }) => m.Title), ['Kept as bytes', 'Kept as bytes', 'Small one']);
    assert.equal(Number(res.headers['x-credits-charged']), 3 * perFile);
    assert.equal(await credits(), before - 3 * perFile);
    assert.deepEqual(decodedFields(), { ...fields, made: fields.made + 2 }, 'the two large files came decoded, in files handed to the tool as such');
  });

  it('checks a large body\'s decoded files against the schema as the strings they were: the same 400 texts, for free', async () => {
    const big = paddedPdf('Checked', 90_000).toString('base64');
    const start = await credits();
    // Each pair: the large body and a small one that must get the same answer.
    const pairs: [string, unknown, unknown][] = [
      ['a file list with a number in it', { inputMethod: 'base64', files: [big, 5] }, { inputMethod: 'base64', files: ['QUFB', 5] }],
      ['metadata of the wrong type', { inputMethod: 'base64', files: [big], metadata: 'Title' }, { inputMethod: 'base64', files: ['QUFB'], metadata: 'Title' }],
      ['an unknown inputMethod', { inputMethod: 'base64 ', files: [big] }, { inputMethod: 'base64 ', files: ['QUFB'] }],
    ];
    for (const [what, large, smallBody] of pairs) {
      const path = what === 'metadata of the wrong type' ? '/api/v1/write-pdf-metadata' : '/api/v1/read-pdf-metadata';
      const expected = await s.call('POST', path, { key, body: smallBody });
      const res = await s.call('POST', path, { key, body: large });
      assert.equal(expected.status, 400, `${what}: ${expected.text.slice(0, 200)}`);
      assert.equal(res.status, expected.status, `${what}: ${res.text.slice(0, 200)}`);
      assert.deepEqual(res.json, expected.json, what);
    }
    // A capped text field beside the files is text, not a file: over its cap it gets the usual
    // length 400 (a prompt of 100,004 base64 letters).
    const prompt = await s.call('POST', '/api/v1/extract-image', { key, body: { inputMethod: 'base64', images: [big], prompt: 'A'.repeat(100_004) } });
    assert.equal(prompt.status, 400, prompt.text.slice(0, 200));
    assert.deepEqual(prompt.json, { error: "Invalid input: 'prompt' expected string length less or equal to 100000." });
    assert.equal(await credits(), start);
  });

  it('answers a large body\'s errors as a small one\'s, for free', async () => {
    const pad = 'p'.repeat(70_000);
    const start = await credits();
    const cases: [string, string, number, string][] = [
      ['truncated JSON', `{"inputMethod":"base64","requestSource":"${pad}","files":["`, 400, 'Invalid JSON body.'],
      ['a __proto__ key', `{"inputMethod":"base64","requestSource":"${pad}","__proto__":{"x":1},"files":["AAAA"]}`, 400, 'Invalid JSON body.'],
      ['nesting past the limit', `{"inputMethod":"base64","requestSource":"${pad}","files":["AAAA"],"x":${'['.repeat(100)}${']'.repeat(100)}}`, 400, 'Invalid input: JSON nested deeper than 64 levels.'],
      ['a long string that is not base64', JSON.stringify({ inputMethod: 'base64', files: ['*'.repeat(80_000)] }), 400, "'files[0]' is not valid base64."],
      ['a decoded file over its limit', JSON.stringify({ inputMethod: 'base64', files: [paddedPdf('Too big', 200_000).toString('base64')] }), 413, "'files[0]' is larger than the 150 KB limit."],
    ];
    for (const [what, body, status, error] of cases) {
      assert.ok(body.length >= 65536, what);
      const res = await s.call('POST', '/api/v1/read-pdf-metadata', { key, rawBody: body });
      assert.equal(res.status, status, `${what}: ${res.text.slice(0, 200)}`);
      assert.deepEqual(res.json, { error }, what);
    }
    assert.equal(await credits(), start);
  });

  it('refuses from the headers alone: a body that never arrives gets its 413, 429 BUSY or 429 RATE_LIMITED', async () => {
    const head = (path: string, token: string, length: number) => `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    // Past the route's limit.
    const big = await raw(s.url, head('/api/v1/read-pdf-metadata', key, 5 * 1024 * 1024));
    assert.equal(big.status, 413, big.text);
    assert.deepEqual(JSON.parse(big.text), { error: 'Request body is too large: this route accepts at most 2097152 bytes.' });
    // Within it, but past the instance's budget of bytes arriving at once.
    const { hostname, port } = new URL(s.url);
    const holder = net.connect(Number(port), hostname);
    holder.write(head('/api/v1/read-pdf-metadata', key, 2 * 1024 * 1024));
    await new Promise((r) => setTimeout(r, 200));
    const { key: other } = await s.createKey({ credits: 10 });
    const busy = await raw(s.url, head('/api/v2/run', other, 1536 * 1024));
    holder.destroy();
    assert.equal(busy.status, 429, busy.text);
    assert.equal(JSON.parse(busy.text).code, 'BUSY');
    assert.match(busy.text, /The service is receiving too much data at once\. Please retry shortly\./);
    // A key past its rate limit is refused before its body too.
    const { key: slow } = await s.createKey({ credits: 10, rateLimitPerMinute: 1 });
    assert.equal((await s.call('GET', '/api/v2/balance', { key: slow })).status, 200);
    const limited = await raw(s.url, head('/api/v1/read-pdf-metadata', slow, 1024 * 1024));
    assert.equal(limited.status, 429, limited.text);
    assert.match(JSON.parse(limited.text).error, /rate limit/i);
  });

  it('one key may hold only its share of the bytes arriving at once; another key\'s body still fits', async () => {
    const { key: flooder } = await s.createKey({ credits: 10 });
    const { key: other } = await s.createKey({ credits: 10 });
    const head = (token: string, length: number) => `POST /api/v1/read-pdf-metadata HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const { hostname, port } = new URL(s.url);
    const holder = net.connect(Number(port), hostname);
    holder.write(head(flooder, 1536 * 1024));
    await new Promise((r) => setTimeout(r, 200));
    const body = JSON.stringify({ inputMethod: 'base64', files: ['AAAA'], requestSource: 'p'.repeat(1024 * 1024) });
    const refused = await raw(s.url, head(flooder, Buffer.byteLength(body)));
    assert.equal(refused.status, 429, refused.text);
    assert.deepEqual(JSON.parse(refused.text), { error: 'This key is sending too much data at once. Please retry once its other requests are done.' });
    const served = await raw(s.url, head(other, Buffer.byteLength(body)), body);
    assert.equal(served.status, 400, served.text);
    assert.deepEqual(JSON.parse(served.text), { error: "'files[0]' is not a PDF." });
    // Once the flooder's upload is gone its share is back.
    holder.destroy();
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await raw(s.url, head(flooder, Buffer.byteLength(body)), body)).status, 400);
  });
});
