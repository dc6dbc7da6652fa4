/**
 * Produced files on an S3-compatible bucket (issue 25, "The engine"): a PDF merged on one instance
 * lands in the bucket and its signed link downloads from a second instance that shares only the
 * bucket and the signing secret, ranges included; the admin API lists and deletes it there;
 * expired links are 404s and the sweep removes the objects; a store that is down is a 502 that
 * costs nothing. The bucket is the loopback fake, which checks every request's signature.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { PDFDocument } from 'pdf-lib';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { fakeS3Env, startFakeS3, type FakeS3 } from '../core/testing/fake-s3.js';

async function onePagePdf(): Promise<string> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  return Buffer.from(await doc.save()).toString('base64');
}

const SECRET = 'files-s3-test-signing-secret';

describe('files on S3', () => {
  let fake: FakeS3;
  let a: TestServer;
  let b: TestServer;
  const servers: TestServer[] = [];
  const start = async (env: Record<string, string>) => {
    const s = await startServer({ env: { ...fakeS3Env(fake, 'produced/'), FILES_SIGNING_SECRET: SECRET, ...env }, serviceConfig: pluginsConfig(['documents']) });
    servers.push(s);
    return s;
  };
  const merge = async (s: TestServer, key: string) => s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'base64', files: [await onePagePdf(), await onePagePdf()] } });
  const local = (s: TestServer) => `${s.url}`;

  before(async () => {
    fake = await startFakeS3();
    a = await start({});
    b = await start({});
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await fake.close();
  });

  it('a merged PDF lands in the bucket, and downloads, lists and deletes on another instance', async () => {
    const { key } = await a.createKey({ credits: 1000 });
    const merged = await merge(a, key);
    assert.equal(merged.status, 200, merged.text);
    const link = new URL(merged.json.url);
    const id = link.pathname.split('/').pop()!;
    const stored = fake.objects.get(`produced/${id}.${link.searchParams.get('expires')}`);
    assert.ok(stored, 'the PDF is an object in the bucket');
    assert.equal(stored.contentType, 'application/pdf');
    assert.equal(stored.body.subarray(0, 5).toString(), '%PDF-');
    const onDisk = await readdir(join(a.dataDir, 'files')).catch(() => [] as string[]);
    assert.deepEqual(onDisk.filter((n) => n.startsWith(id)), [], 'nothing of it in the producing instance’s DATA_DIR');

    const path = `${link.pathname}${link.search}`;
    const got = await fetch(`${local(b)}${path}`);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'application/pdf');
    assert.equal(got.headers.get('content-disposition'), `inline; filename="${id}.pdf"`);
    assert.equal(got.headers.get('accept-ranges'), 'bytes');
    assert.ok(Buffer.from(await got.arrayBuffer()).equals(stored.body), 'the same bytes from the other instance');

    const part = await fetch(`${local(b)}${path}`, { headers: { range: 'bytes=1-3' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 1-3/${stored.body.length}`);
    assert.equal(await part.text(), 'PDF');
    const past = await fetch(`${local(b)}${path}`, { headers: { range: `bytes=${stored.body.length}-` } });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), `bytes */${stored.body.length}`);

    const listed = await b.admin('GET', '/files');
    assert.equal(listed.status, 200, listed.text);
    const entry = listed.json.items.find((f: { id: string }) => f.id === id);
    assert.deepEqual(entry && [entry.contentType, entry.size], ['application/pdf', stored.body.length]);

    const gone = await b.admin('DELETE', `/files/${id}`);
    assert.equal(gone.status, 200, gone.text);
    assert.deepEqual(gone.json, { id, deleted: true });
    assert.equal((await fetch(`${local(a)}${path}`)).status, 404, 'deleted on B, gone on A');
    assert.equal((await b.admin('DELETE', `/files/${id}`)).status, 404);
  });

  it('a link signed with another secret is a 404 on an instance of this bucket', async () => {
    const { key } = await a.createKey({ credits: 1000 });
    const merged = await merge(a, key);
    const link = new URL(merged.json.url);
    const other = await start({ FILES_SIGNING_SECRET: 'some-other-secret' });
    const res = await fetch(`${other.url}${link.pathname}${link.search}`);
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { error: 'File not found or the download link has expired.' });
  });

  it('expired links are 404s and the sweep deletes the expired objects', async () => {
    const short = await start({ FILES_MAX_RETENTION_MS: '2000', FILES_SWEEP_INTERVAL_MS: '200' });
    const { key } = await short.createKey({ credits: 1000 });
    const merged = await merge(short, key);
    assert.equal(merged.status, 200, merged.text);
    const link = new URL(merged.json.url);
    const objectKey = `produced/${link.pathname.split('/').pop()}.${link.searchParams.get('expires')}`;
    assert.ok(fake.objects.has(objectKey));
    while (Number(link.searchParams.get('expires')) * 1000 > Date.now()) await new Promise((r) => setTimeout(r, 100));
    const res = await fetch(`${b.url}${link.pathname}${link.search}`);
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { error: 'File not found or the download link has expired.' });
    // The sweeper runs every 200 ms on the short-retention instance; wait for its next pass.
    while (fake.objects.has(objectKey)) await new Promise((r) => setTimeout(r, 100));
    assert.ok(fake.requests.some((r) => r.method === 'DELETE' && r.key === objectKey && r.status === 204), 'removed by a DELETE to the bucket');
  });

  it('a store that is down or failing is a 502 with a clear message, and the failed merge costs nothing', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const down = await start({ FILES_S3_ENDPOINT: `http://127.0.0.1:${port}` });
    const { key } = await down.createKey({ credits: 1000 });
    const res = await merge(down, key);
    assert.equal(res.status, 502, res.text);
    assert.deepEqual(res.json, { error: 'File storage is unavailable: could not store the file. Please try again later.' });
    assert.equal((await down.call('GET', '/api/v2/balance', { key })).json.data.credits, 1000);

    const { key: k2 } = await a.createKey({ credits: 1000 });
    const ok = new URL((await merge(a, k2)).json.url);
    const before = (await a.call('GET', '/api/v2/balance', { key: k2 })).json.data.credits;
    fake.failWith = 500;
    try {
      const dl = await fetch(`${b.url}${ok.pathname}${ok.search}`);
      assert.equal(dl.status, 502);
      assert.deepEqual(await dl.json(), { error: 'File storage is unavailable: could not read the file. Please try again later.' });
      const failed = await merge(a, k2);
      assert.equal(failed.status, 502, failed.text);
      assert.equal((await a.call('GET', '/api/v2/balance', { key: k2 })).json.data.credits, before);
    } finally {
      fake.failWith = undefined;
    }
  });
});
