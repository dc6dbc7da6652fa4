/** File store: signed expiring URLs, the download check and the sweeper (spec §8.2). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileStore } from './index.js';
import { NotFoundError } from '../../errors.js';
import { PERMANENT_EXPIRES } from './types.js';
import { ID_RE, newId } from './signing.js';

const log = { debug() {}, info() {}, warn() {}, error() {} };

async function store(env: Record<string, string> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'files-test-'));
  const s = createFileStore({ dataDir, publicBaseUrl: () => 'http://127.0.0.1:9/', env, log });
  return { s, dataDir, async done() { await s.close(); await rm(dataDir, { recursive: true, force: true }); } };
}

const parts = (url: string) => {
  const u = new URL(url);
  return { id: u.pathname.split('/').pop()!, expires: u.searchParams.get('expires')!, sig: u.searchParams.get('sig')! };
};

test('put stores the bytes behind a signed URL that open accepts, with a 24 h default retention', async () => {
  const { s, done } = await store();
  try {
    const before = Date.now();
    const f = await s.put(new TextEncoder().encode('%PDF-1.7 hello'), { contentType: 'application/pdf', extension: 'pdf' });
    assert.match(f.url, /^http:\/\/127\.0\.0\.1:9\/files\/[A-Za-z0-9_-]{32}\?expires=\d+&sig=[0-9a-f]{64}$/);
    assert.ok(Math.abs(f.expiresAt.getTime() - (before + 24 * 3600 * 1000)) < 5000);
    const { id, expires, sig } = parts(f.url);
    const opened = await s.open(id, expires, sig);
    assert.equal(opened.contentType, 'application/pdf');
    assert.equal(opened.size, 14);
    assert.equal((await opened.bytes()).toString('utf8'), '%PDF-1.7 hello');
    let part = '';
    for await (const c of await opened.stream({ start: 1, end: 3 })) part += String(c);
    assert.equal(part, 'PDF', 'a byte range, ends included');
  } finally {
    await done();
  }
});

test('open rejects tampered signatures, extended expiry, unknown ids and expired files alike', async () => {
  const { s, done } = await store({ FILES_MAX_RETENTION_MS: '1000' });
  try {
    const f = await s.put(new Uint8Array([1, 2, 3]), { contentType: 'image/png', extension: 'png' });
    const { id, expires, sig } = parts(f.url);
    const attempts: [string, string | undefined, string | undefined][] = [
      [id, expires, sig.replace(/^./, (c) => (c === '0' ? '1' : '0'))],
      [id, String(Number(expires) + 60), sig],
      ['A'.repeat(32), expires, sig],
      ['../../etc/passwd', expires, sig],
      [id, undefined, undefined],
    ];
    for (const [i, e, g] of attempts) await assert.rejects(s.open(i, e, g), NotFoundError);
    await s.open(id, expires, sig);
    await new Promise((r) => setTimeout(r, Number(expires) * 1000 - Date.now() + 50));
    await assert.rejects(s.open(id, expires, sig), NotFoundError);
  } finally {
    await done();
  }
});

test('the sweeper deletes expired files and keeps live ones; the secret persists across restarts', async () => {
  const { s, dataDir, done } = await store();
  try {
    const live = await s.put(new Uint8Array([1]), { contentType: 'application/pdf', extension: 'pdf' });
    const short = await s.put(new Uint8Array([2]), { contentType: 'application/pdf', extension: 'pdf', retentionMs: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal(await s.sweep(), 1);
    const names = await readdir(join(dataDir, 'files'));
    assert.ok(names.some((n) => n.startsWith(live.id)));
    assert.ok(!names.some((n) => n.startsWith(short.id)));
    // A second store on the same data dir (a restart) still accepts the first one's URLs.
    const again = createFileStore({ dataDir, publicBaseUrl: () => 'http://x', env: {}, log });
    const { id, expires, sig } = parts(live.url);
    await again.open(id, expires, sig);
    await again.close();
  } finally {
    await done();
  }
});

test('permanent files carry a far expiry and outlive the sweep; FILES_MAX_RETENTION_MS still ends them', async () => {
  const { s, done } = await store();
  try {
    const kept = await s.put(new Uint8Array([7]), { contentType: 'image/png', extension: 'png', permanent: true });
    const { id, expires, sig } = parts(kept.url);
    assert.equal(Number(expires), PERMANENT_EXPIRES);
    assert.equal(kept.expiresAt.getTime(), PERMANENT_EXPIRES * 1000);
    assert.equal(await s.sweep(), 0);
    assert.equal((await s.open(id, expires, sig)).size, 1);
  } finally {
    await done();
  }
  const capped = await store({ FILES_MAX_RETENTION_MS: '1000' });
  try {
    const before = Date.now();
    const f = await capped.s.put(new Uint8Array([8]), { contentType: 'image/png', extension: 'png', permanent: true });
    assert.ok(f.expiresAt.getTime() <= before + 1000 + 1000);
    await new Promise((r) => setTimeout(r, f.expiresAt.getTime() - Date.now() + 50));
    const { id, expires, sig } = parts(f.url);
    await assert.rejects(capped.s.open(id, expires, sig), NotFoundError);
  } finally {
    await capped.done();
  }
});

test('a .json file and its metadata never share a name: stored, opened, listed, deleted and swept like any other', async () => {
  const { s, dataDir, done } = await store();
  try {
    const body = JSON.stringify({ contentType: 'text/evil', extension: 'exe', expiresAt: 1, size: 0 });
    const f = await s.put(Buffer.from(body), { contentType: 'application/json', extension: 'json' });
    const { id, expires, sig } = parts(f.url);
    const opened = await s.open(id, expires, sig);
    assert.deepEqual([opened.contentType, opened.filename, opened.size], ['application/json', `${id}.json`, body.length]);
    assert.equal((await opened.bytes()).toString('utf8'), body, 'the bytes are the data, not the metadata');
    assert.deepEqual((await s.list!()).map((l) => [l.id, l.contentType, l.size]), [[id, 'application/json', body.length]]);
    assert.equal(await s.sweep(), 0, 'a data file that looks like metadata is not read as such');
    assert.equal((await s.open(id, expires, sig)).contentType, 'application/json');

    const short = await s.put(Buffer.from('{}'), { contentType: 'application/json', extension: 'json', retentionMs: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal(await s.sweep(), 1);
    assert.deepEqual((await readdir(join(dataDir, 'files'))).filter((n) => n.startsWith(short.id)), [], 'the expired file went with its metadata');

    assert.equal(await s.delete(id), true);
    assert.deepEqual((await readdir(join(dataDir, 'files'))).filter((n) => n.startsWith(id)), []);
    await assert.rejects(s.open(id, expires, sig), NotFoundError);
  } finally {
    await done();
  }
});

test('files an older release wrote (metadata in <id>.json) are opened, listed, swept and deleted', async () => {
  const secret = 'upgrade-secret';
  const { s, dataDir, done } = await store({ FILES_SIGNING_SECRET: secret });
  const dir = join(dataDir, 'files');
  /** Writes a file the way the old layout did and returns its signed link's parts. */
  const writeOld = async (id: string, expiresAt: number, bytes: string) => {
    const expires = Math.floor(expiresAt / 1000);
    await writeFile(join(dir, `${id}.pdf`), bytes);
    await writeFile(join(dir, `${id}.json`), JSON.stringify({ contentType: 'application/pdf', extension: 'pdf', expiresAt: expires * 1000, size: bytes.length }));
    return { id, expires: String(expires), sig: createHmac('sha256', secret).update(`${id}.${expires}`).digest('hex') };
  };
  try {
    const kept = await writeOld('K'.repeat(32), Date.now() + 3600_000, '%PDF old');
    const gone = await writeOld('G'.repeat(32), Date.now() - 1000, '%PDF expired');
    const dropped = await writeOld('D'.repeat(32), Date.now() + 3600_000, '%PDF dropped');
    const opened = await s.open(kept.id, kept.expires, kept.sig);
    assert.deepEqual([opened.contentType, opened.filename], ['application/pdf', `${kept.id}.pdf`]);
    assert.equal((await opened.bytes()).toString(), '%PDF old');
    assert.deepEqual((await s.list!()).map((l) => l.id).sort(), [dropped.id, kept.id]);
    assert.equal(await s.sweep(), 1);
    assert.deepEqual((await readdir(dir)).filter((n) => n.startsWith(gone.id)), [], 'the expired old file and its metadata were swept');
    assert.equal(await s.delete(dropped.id), true);
    assert.deepEqual((await readdir(dir)).filter((n) => n.startsWith(dropped.id)), []);
    assert.equal((await s.open(kept.id, kept.expires, kept.sig)).size, 8, 'the live old file is still served');
  } finally {
    await done();
  }
});

test('an owned file outlives FILES_MAX_RETENTION_MS and the sweep, is listed as owned, and goes when deleted', async () => {
  const { s, done } = await store({ FILES_MAX_RETENTION_MS: '1000' });
  try {
    const f = await s.put(Buffer.from('{"big":true}'), { contentType: 'application/json', extension: 'json', owner: 'job_abc' });
    const capped = await s.put(Buffer.from('x'), { contentType: 'image/png', extension: 'png', permanent: true });
    const { id, expires, sig } = parts(f.url);
    assert.equal(Number(expires), PERMANENT_EXPIRES);
    await new Promise((r) => setTimeout(r, 2100));
    assert.equal(await s.sweep(), 1, 'only the capped permanent file went');
    assert.equal((await (await s.open(id, expires, sig)).bytes()).toString(), '{"big":true}');
    assert.deepEqual(await s.owned(), [{ id, owner: 'job_abc' }]);
    assert.ok(!(await s.list!()).some((l) => l.id === capped.id));
    assert.equal(await s.delete(id), true);
    assert.deepEqual(await s.owned(), []);
  } finally {
    await done();
  }
});

test('file ids never start with a dash, which a command line would read as an option', () => {
  const ids = Array.from({ length: 5000 }, newId);
  assert.ok(ids.every((id) => ID_RE.test(id) && !id.startsWith('-')));
  assert.equal(new Set(ids).size, ids.length);
});
