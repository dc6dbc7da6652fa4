/**
 * Issue 24, "nothing hostile on the event loop": in a large body (parsed off the serving thread),
 * a long string that reads as base64 beside `inputMethod: 'base64'` leaves the body as a file
 * (core/plugin/predecoded.ts). When the target's schema reads that field as text, not as a file
 * (a `prompt` or `pages` with a length cap), the executor used to rebuild its string with
 * blocking reads of its files on the serving thread, up to the body's size, just to check it.
 * Now it is read back without blocking: the answer is the one a small body gets (the model sees
 * the prompt as sent; an over-long field is the same 400), and no blocking rebuild happens. The
 * test process is the server, so the counters of predecoded.ts are the server's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';
import { textPdf } from './fixtures/extract/make.js';
import { decodedFields } from '../core/plugin/predecoded.js';

/** Text of about `chars` characters that is also valid base64 (the body parser decodes such strings ahead). */
const base64Text = (chars: number) => Buffer.from('Which invoice is paid? '.repeat(Math.ceil((chars * 3) / 4 / 23))).toString('base64').slice(0, chars - (chars % 4));

describe('text fields of a large body are read back without blocking the serving thread', () => {
  let fake: ModelFake;
  let s: TestServer;
  let key: string;
  before(async () => {
    fake = await startFake();
    s = await startServer({
      env: { ...fake.env, JSON_OFF_THREAD_BYTES: '65536', DOCUMENTS_PREWARM: 'false', OFFICE_POOL_SIZE: '1' },
      serviceConfig: pluginsConfig(['documents', 'doc_text', 'extract']),
    });
    ({ key } = await s.createKey({ credits: 100_000 }));
  });
  after(async () => {
    await s?.close();
    await fake?.close();
  });
  const pdf = textPdf(['Invoice 4711 paid']).toString('base64');

  it('extract-document with a long base64-looking prompt: the model reads the prompt as sent', async () => {
    const prompt = base64Text(80_000);
    const before = decodedFields();
    const r = await s.call('POST', '/api/v1/extract-document', { key, body: { inputMethod: 'base64', files: [pdf], prompt } });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.json.prompt, prompt);
    assert.ok(fake.chats.at(-1)!.text.includes(prompt), 'the model got the whole prompt');
    assert.match(fake.chats.at(-1)!.text, /Invoice 4711 paid/);
    const now = decodedFields();
    assert.ok(now.made > before.made, 'the prompt left the body as a file (the path under test)');
    assert.ok(now.rebuilt > before.rebuilt, 'the prompt was rebuilt from its file');
    assert.equal(now.rebuiltSync, before.rebuiltSync, 'no blocking rebuild on the serving thread');
  });

  it('an over-long prompt, or page selection, is the 400 a small body gets, with no blocking rebuild (v1 and v2)', async () => {
    const before = decodedFields();
    const long = await s.call('POST', '/api/v1/extract-document', { key, body: { inputMethod: 'base64', files: [pdf], prompt: base64Text(120_000) } });
    assert.equal(long.status, 400, long.text.slice(0, 300));
    assert.match(long.json.error, /prompt/);
    const pages = await s.call('POST', '/api/v1/doc-to-text', { key, body: { inputMethod: 'base64', file: pdf, pages: base64Text(70_000) } });
    assert.equal(pages.status, 400, pages.text.slice(0, 300));
    assert.match(pages.json.error, /pages/);
    const v2 = await s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'doc_to_text', input: { inputMethod: 'base64', file: pdf, pages: base64Text(70_000) } } });
    assert.equal(v2.status, 400, v2.text.slice(0, 300));
    assert.match(JSON.stringify(v2.json), /pages/);
    const now = decodedFields();
    assert.ok(now.made >= before.made + 3, 'each long field left its body as a file');
    assert.equal(now.rebuiltSync, before.rebuiltSync, 'no blocking rebuild on the serving thread');
  });
});
