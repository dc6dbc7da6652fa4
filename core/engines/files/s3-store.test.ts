/**
 * The S3 backend of the file store against the loopback fake (issue 25): files and their metadata
 * live in the bucket so a second instance serves them, ranges stream, expiry is refused and swept
 * page by page, and every store failure reads as the catalogue's 502.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createFileStore } from './index.js';
import { fakeS3Env, startFakeS3, type FakeS3 } from '../../testing/fake-s3.js';
import { NotFoundError, UpstreamError } from '../../errors.js';
import { PERMANENT_EXPIRES } from './types.js';

const log = { debug() {}, info() {}, warn() {}, error() {} };
let fake: FakeS3;
let dataDir: string;
const open: { close(): Promise<void> }[] = [];

before(async () => {
  fake = await startFakeS3();
  dataDir = await mkdtemp(join(tmpdir(), 's3-store-test-'));
});
after(async () => {
  await Promise.all(open.map((s) => s.close()));
  await fake.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A store on the fake; each call is a separate "instance" with its own data directory. */
function store(env: Record<string, string> = {}, prefix = 't/') {
  const s = createFileStore({ dataDir, publicBaseUrl: () => 'http://127.0.0.1:9', env: { ...fakeS3Env(fake, prefix), FILES_SIGNING_SECRET: 'shared-secret', FILES_SWEEP_INTERVAL_MS: '3600000', ...env }, log });
  open.push(s);
  return s;
}

const parts = (url: string) => {
  const u = new URL(url);
  return [u.pathname.split('/').pop()!, u.searchParams.get('expires')!, u.searchParams.get('sig')!] as const;
};

async function text(s: AsyncIterable<unknown>): Promise<string> {
  let out = '';
  for await (const c of s) out += String(c);
  return out;
}

test('a file put by one instance is in the bucket with its metadata, and another instance serves it, whole or a range', async () => {
  const a = store();
  const f = await a.put(Buffer.from('%PDF-1.7 shared bytes'), { contentType: 'application/pdf', extension: 'pdf' });
  const [id, expires, sig] = parts(f.url);
  const obj = fake.objects.get(`t/${id}.${expires}`);
  assert.ok(obj, 'the object is stored under the prefix, keyed by id and expiry');
  assert.equal(obj.contentType, 'application/pdf');
  assert.deepEqual(obj.meta, { extension: 'pdf', expires });

  const b = store();
  const opened = await b.open(id, expires, sig);
  assert.equal(opened.path, undefined);
  assert.deepEqual([opened.contentType, opened.size, opened.filename, opened.expiresAt.getTime()], ['application/pdf', 21, `${id}.pdf`, Number(expires) * 1000]);
  assert.equal((await opened.bytes()).toString(), '%PDF-1.7 shared bytes');
  assert.equal(await text(await opened.stream({ start: 9, end: 14 })), 'shared');
  assert.equal(fake.requests.at(-1)!.method, 'GET');

  await assert.rejects(b.open(id, expires, sig.replace(/^./, (c) => (c === '0' ? '1' : '0'))), NotFoundError);
  const otherSecret = store({ FILES_SIGNING_SECRET: 'another-secret' });
  await assert.rejects(otherSecret.open(id, expires, sig), NotFoundError, 'links are only good with the shared signing secret');
});

test('metadata expiry is authoritative: an object whose stored expiry passed is refused', async () => {
  const s = store();
  const f = await s.put(Buffer.from('x'), { contentType: 'text/plain', extension: 'txt' });
  const [id, expires, sig] = parts(f.url);
  fake.objects.get(`t/${id}.${expires}`)!.meta.expires = String(Math.floor(Date.now() / 1000) - 5);
  await assert.rejects(s.open(id, expires, sig), (e: unknown) => e instanceof NotFoundError && e.status === 404);
});

test('the sweep pages through the listing, deletes only our expired keys, and two sweeps at once are safe', async () => {
  const s = store({}, 'sweep/');
  fake.maxKeys = 2;
  try {
    const past = Math.floor(Date.now() / 1000) - 60;
    const expired = Array.from({ length: 5 }, (_, i) => `sweep/${String(i).padStart(32, 'e')}.${past}`);
    const body = { body: Buffer.from('old'), contentType: 'text/plain', meta: {}, lastModified: new Date() };
    for (const k of expired) fake.objects.set(k, { ...body });
    fake.objects.set('sweep/not-ours.txt', { ...body });
    fake.objects.set(`other/${'o'.repeat(32)}.${past}`, { ...body });
    const live = await s.put(Buffer.from('new'), { contentType: 'text/plain', extension: 'txt' });
    const lists = () => fake.requests.filter((r) => r.method === 'GET' && r.key === '' && r.query['list-type'] === '2').length;
    const before = lists();

    const [one, two] = await Promise.all([s.sweep(), store({}, 'sweep/').sweep()]);
    assert.ok(one + two >= 5, `${one} + ${two} deletions`);
    assert.ok(lists() - before >= 6, 'both sweeps walked every page of two keys');
    for (const k of expired) assert.equal(fake.objects.has(k), false, `${k} swept`);
    assert.ok(fake.objects.has('sweep/not-ours.txt'), 'a key that is not a file id is left alone');
    assert.ok(fake.objects.has(`other/${'o'.repeat(32)}.${past}`), 'keys outside the prefix are left alone');
    assert.ok(fake.objects.has(`sweep/${live.id}.${parts(live.url)[1]}`), 'a live file stays');
    assert.equal(await s.sweep(), 0);
  } finally {
    fake.maxKeys = 1000;
  }
});

test('list shows live files with their type, and delete removes one (false the second time)', async () => {
  const s = store({}, 'list/');
  fake.maxKeys = 1;
  try {
    const a = await s.put(Buffer.from('aaaa'), { contentType: 'image/png', extension: 'png', retentionMs: 60_000 });
    const b = await s.put(Buffer.from('bb'), { contentType: 'application/pdf', extension: 'pdf' });
    const listed = await s.list!();
    assert.deepEqual(listed.map((f) => [f.id, f.contentType, f.size]), [[b.id, 'application/pdf', 2], [a.id, 'image/png', 4]]);
    assert.equal(await s.delete(a.id), true);
    assert.equal(await s.delete(a.id), false);
    assert.equal(await s.delete('../../etc/passwd'), false);
    await assert.rejects(s.open(...parts(a.url)), NotFoundError);
    assert.deepEqual((await s.list!()).map((f) => f.id), [b.id]);
  } finally {
    fake.maxKeys = 1000;
  }
});

test('store failures are 502s with a clear message: wrong secret, 5xx, a store too slow, a store not there', async () => {
  const wrong = store({ FILES_S3_SECRET_ACCESS_KEY: 'not-the-secret' });
  await assert.rejects(wrong.put(Buffer.from('x'), { contentType: 'text/plain', extension: 'txt' }), (e: unknown) => e instanceof UpstreamError && e.status === 502 && /refused the service's credentials/.test(e.message));
  assert.equal(fake.requests.at(-1)!.status, 403);

  const s = store({ FILES_S3_TIMEOUT_MS: '300' });
  const f = await s.put(Buffer.from('x'), { contentType: 'text/plain', extension: 'txt' });
  fake.failWith = 503;
  try {
    await assert.rejects(s.put(Buffer.from('x'), { contentType: 'text/plain', extension: 'txt' }), (e: unknown) => e instanceof UpstreamError && /File storage is unavailable: could not store the file/.test(e.message));
    await assert.rejects(s.open(...parts(f.url)), (e: unknown) => e instanceof UpstreamError && /could not read the file/.test(e.message));
    fake.failWith = 500;
    await assert.rejects(s.list!(), (e: unknown) => e instanceof UpstreamError && /could not list files/.test(e.message));
  } finally {
    fake.failWith = undefined;
  }
  fake.delayMs = 1500;
  try {
    await assert.rejects(s.open(...parts(f.url)), (e: unknown) => e instanceof UpstreamError && e.status === 502);
  } finally {
    fake.delayMs = 0;
  }

  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as { port: number }).port;
      srv.close(() => resolve(p));
    });
  });
  const gone = store({ FILES_S3_ENDPOINT: `http://127.0.0.1:${port}` });
  await assert.rejects(gone.put(Buffer.from('x'), { contentType: 'text/plain', extension: 'txt' }), (e: unknown) => e instanceof UpstreamError && /File storage is unavailable/.test(e.message));
});

test('with FILES_S3_PRESIGNED_LINKS a file gets a presigned bucket URL the store accepts until the file expires', async () => {
  const s = store({ FILES_S3_PRESIGNED_LINKS: 'true' });
  const f = await s.put(Buffer.from('presigned bytes'), { contentType: 'text/plain', extension: 'txt', retentionMs: 3_600_000 });
  const u = new URL(f.url);
  assert.equal(`${u.origin}${u.pathname}`, `${fake.url}/${fake.bucket}/t/${f.id}.${Math.floor(f.expiresAt.getTime() / 1000)}`);
  assert.ok(Math.abs(Number(u.searchParams.get('X-Amz-Expires')) - 3600) <= 2);
  const got = await fetch(f.url);
  assert.equal(got.status, 200);
  assert.equal(await got.text(), 'presigned bytes');
  u.searchParams.set('X-Amz-Signature', '0'.repeat(64));
  const forged = await fetch(u);
  assert.equal(forged.status, 403);
  assert.match(await forged.text(), /SignatureDoesNotMatch/);

  // A URL presigned with a wrong secret (signing is local, so it is handed out) is refused by the store.
  const key = `t/${'w'.repeat(32)}.${Math.floor(Date.now() / 1000) + 60}`;
  fake.objects.set(key, { body: Buffer.from('x'), contentType: 'text/plain', meta: {}, lastModified: new Date() });
  const client = new S3Client({ region: fake.region, endpoint: fake.url, forcePathStyle: true, credentials: { accessKeyId: fake.accessKeyId, secretAccessKey: 'not-the-secret' } });
  const bad = await fetch(await getSignedUrl(client, new GetObjectCommand({ Bucket: fake.bucket, Key: key }), { expiresIn: 60 }));
  assert.equal(bad.status, 403);
  client.destroy();

  const permanent = await s.put(Buffer.from('kept'), { contentType: 'text/plain', extension: 'txt', permanent: true });
  assert.match(permanent.url, /^http:\/\/127\.0\.0\.1:9\/files\/[A-Za-z0-9_-]{32}\?expires=\d+&sig=[0-9a-f]{64}$/, 'longer than a presigned URL can live: the service link');
});

test('an owned file keeps the far expiry whatever FILES_MAX_RETENTION_MS says, and owned() names its owner from any instance', async () => {
  const a = store({ FILES_MAX_RETENTION_MS: '1000' }, 'owned/');
  const f = await a.put(Buffer.from('{"input":1}'), { contentType: 'application/json', extension: 'json', owner: 'job_xyz' });
  await a.put(Buffer.from('kept'), { contentType: 'image/png', extension: 'png', permanent: true });
  const [id, expires, sig] = parts(f.url);
  assert.equal(Number(expires), PERMANENT_EXPIRES);
  assert.equal(fake.objects.get(`owned/${id}.${expires}`)!.meta.owner, 'job_xyz');
  const b = store({}, 'owned/');
  assert.deepEqual(await b.owned(), [{ id, owner: 'job_xyz' }]);
  assert.equal((await (await b.open(id, expires, sig)).bytes()).toString(), '{"input":1}');
  assert.equal(await b.delete(id), true);
  assert.deepEqual(await a.owned(), []);
});
