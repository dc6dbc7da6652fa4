/**
 * LibreOffice workers hold nothing of the service (issue 18, findings 7 and 8), black-box through
 * the real server started as its own process with secrets in its environment: the workers'
 * processes carry none of them and run under unprivileged uids of their own, a document sees
 * neither the work dir nor other jobs, and a file-name field prints a neutral path, not the data
 * directory; and stopping the service (SIGTERM, its graceful stop) leaves none of the workers'
 * processes behind. Two workers, tiny documents.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './helpers/server.js';
import { processesUsing } from '../core/engines/processes.js';

const FIX = join(import.meta.dirname, 'fixtures', 'documents');
const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Values only the service's own environment holds; none may reach a LibreOffice process. */
const SECRETS = {
  SEARCH_A_API_KEY: 'sk-search-a-7f3c9e1d-never-in-office',
  CRAWLER_A_API_KEY: 'fc-crawler-a-52b8-never-in-office',
  FILES_SIGNING_SECRET: 'files-secret-0d4e-never-in-office',
};

let scratch: string;
let officeDir: string;
let s: TestServer;
let key: string;

/** One process of the pool as /proc shows it. */
interface Proc {
  pid: number;
  cmdline: string;
  environ: string;
  uids: number[];
  groups: string;
}

function readProc(pid: number): Proc | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return {
      pid,
      cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '),
      environ: readFileSync(`/proc/${pid}/environ`, 'utf8'),
      uids: /^Uid:\s+(.*)$/m.exec(status)![1]!.trim().split(/\s+/).map(Number),
      groups: /^Groups:[ \t]*(.*)$/m.exec(status)?.[1]?.trim() ?? '',
    };
  } catch {
    return undefined;
  }
}

/** The pool's processes (found by the work dir in their command lines), once `n` soffice.bin run. */
async function poolProcesses(n: number): Promise<Proc[]> {
  for (let i = 0; i < 600; i++) {
    const procs = processesUsing(officeDir).map(readProc).filter((p): p is Proc => p !== undefined);
    if (procs.filter((p) => p.cmdline.includes('soffice.bin')).length >= n) return procs;
    await sleep(100);
  }
  throw new Error('the LibreOffice workers did not start');
}

async function convertText(body: unknown): Promise<string> {
  const res = await s.call('POST', '/api/v1/convert-to-pdf', { key, body });
  assert.equal(res.status, 200, res.text);
  const pdf = Buffer.from(await (await fetch(res.json.url)).arrayBuffer());
  return execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf }).toString();
}

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'documents-jail-'));
  officeDir = join(scratch, 'office');
  // A file in the work dir and one where jobs are staged: a worker must see neither.
  mkdirSync(join(officeDir, 'jobs'), { recursive: true });
  writeFileSync(join(officeDir, 'planted.png'), readFileSync(join(FIX, 'image.png')));
  writeFileSync(join(officeDir, 'jobs', 'planted.png'), readFileSync(join(FIX, 'image.png')));
  s = await startServer({
    processMode: true,
    env: { ...SECRETS, OFFICE_POOL_SIZE: '2', OFFICE_WORK_DIR: officeDir, DOCUMENTS_PREWARM: 'true', LANG: 'C.UTF-8' },
  });
  key = (await s.createKey({ credits: 10_000 })).key;
});

after(async () => {
  await s?.close();
  await rm(scratch, { recursive: true, force: true });
});

test('LibreOffice workers carry none of the service’s secrets and run under uids of their own', async () => {
  assert.match(await convertText({ inputMethod: 'base64', file: b64('warm-up text') }), /warm-up text/);
  const procs = await poolProcesses(2);
  const secrets = [s.adminToken, ...Object.values(SECRETS)];
  for (const p of procs) {
    for (const secret of secrets) assert.ok(!p.environ.includes(secret), `pid ${p.pid} (${p.cmdline.slice(0, 60)}) holds a secret`);
    assert.doesNotMatch(p.environ, /(^|\0)(ADMIN_TOKEN|[A-Z_]+_API_KEY|FILES_SIGNING_SECRET|DATA_DIR)=/, `pid ${p.pid}`);
  }
  // Everything that reads a document (the driver, soffice, soffice.bin) is unprivileged; only
  // bubblewrap itself, which binds the directories, starts as root.
  const workers = procs.filter((p) => /driver\.py|soffice/.test(p.cmdline) && !p.cmdline.startsWith('/usr/bin/bwrap'));
  assert.ok(workers.length >= 4, workers.map((p) => p.cmdline).join('\n'));
  for (const p of workers) {
    assert.ok(p.uids.every((u) => u !== 0), `pid ${p.pid} runs as ${p.uids} (${p.cmdline.slice(0, 60)})`);
    assert.equal(p.groups, '', `pid ${p.pid} keeps supplementary groups`);
  }
  // One uid per worker: a worker cannot reach the other's profile.
  const offices = workers.filter((p) => p.cmdline.includes('soffice.bin'));
  assert.equal(new Set(offices.map((p) => p.uids[0])).size, 2, 'two workers, two uids');
  // The environment read is the worker's own: HOME is its profile.
  for (const p of offices) assert.match(p.environ, new RegExp(`(^|\\0)HOME=${officeDir}/profile-\\d+(\\0|$)`));
});

test('a file-name field prints the job’s neutral path, never the data directory', async () => {
  const fodt = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text><text:p>Path field: <text:file-name text:display="full">stale value</text:file-name></text:p></office:text></office:body></office:document>`;
  const docx = readFileSync(join(FIX, 'filename-field.docx'));
  for (const [name, text] of [
    ['docx', await convertText({ inputMethod: 'base64', file: b64(docx) })],
    ['fodt', await convertText({ inputMethod: 'base64', file: b64(fodt) })],
  ] as const) {
    // The field was evaluated (not the stale stored value) and names only the jail's path.
    assert.match(text, /Path field:\s+\/job\/input\.\w+/, `${name}: ${text}`);
    assert.ok(!text.includes(scratch) && !text.includes(s.dataDir), `${name} prints a host path: ${text}`);
  }
});

test('a document links to nothing of the work dir: neither its files nor staged jobs', async () => {
  const inline = `data:image/png;base64,${readFileSync(join(FIX, 'image.png')).toString('base64')}`;
  const html = `<!DOCTYPE html><html><body><h1>Jail binds</h1>
    <p><img src="file://${officeDir}/planted.png" width="50" height="50"></p>
    <p><img src="file://${officeDir}/jobs/planted.png" width="50" height="50"></p>
    <p><img src="${inline}" width="50" height="50"></p></body></html>`;
  const res = await s.call('POST', '/api/v1/convert-to-pdf', { key, body: { inputMethod: 'base64', file: b64(html) } });
  assert.equal(res.status, 200, res.text);
  const pdf = Buffer.from(await (await fetch(res.json.url)).arrayBuffer());
  // pdfimages -list: two header lines, then a line per image (and per soft mask, type `smask`).
  const list = execFileSync('pdfimages', ['-list', '-'], { input: pdf }).toString();
  const images = list.trim().split('\n').slice(2).filter((line) => line.split(/\s+/)[3] === 'image');
  assert.equal(images.length, 1, `only the inline image renders:\n${list}`);
});

test('stopping the service leaves no LibreOffice process behind', async () => {
  // Both prewarmed workers are up, so the stop has two to end.
  await poolProcesses(2);
  await s.close();
  assert.deepEqual(processesUsing(officeDir), []);
});
