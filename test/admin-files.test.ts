/**
 * `DELETE /admin/files/:id`: an operator removes a produced file before its time (a permanent
 * image, a merged PDF); its link answers 404 from then on, and only the admin token may do it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument } from 'pdf-lib';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';

async function onePagePdf(): Promise<string> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  return Buffer.from(await doc.save()).toString('base64');
}

describe('admin: deleting a produced file', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startServer({ env: { DOCUMENTS_PREWARM: 'false' }, serviceConfig: pluginsConfig(['documents']) });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(() => s.close());

  it('removes the file, its link then answers 404, and a second delete is a 404', async () => {
    const merged = await s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'base64', files: [await onePagePdf(), await onePagePdf()] } });
    assert.equal(merged.status, 200, merged.text);
    const link = new URL(merged.json.url);
    const id = link.pathname.split('/').pop()!;
    assert.equal((await fetch(`${s.url}${link.pathname}${link.search}`)).status, 200);

    assert.equal((await s.call('DELETE', `/admin/files/${id}`, { key })).status, 401, 'an API key is not the admin token');
    const gone = await s.admin('DELETE', `/files/${id}`);
    assert.equal(gone.status, 200, gone.text);
    assert.deepEqual(gone.json, { id, deleted: true });
    assert.equal((await fetch(`${s.url}${link.pathname}${link.search}`)).status, 404);

    const again = await s.admin('DELETE', `/files/${id}`);
    assert.equal(again.status, 404);
    assert.equal(again.json.error, `File not found: ${id}`);
    assert.equal((await s.admin('DELETE', '/files/..%2Fdb')).status, 404, 'only well-formed file ids are looked up');
  });
});
