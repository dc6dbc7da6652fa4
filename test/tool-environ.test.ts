/**
 * Issue 24, "Done when": no spawned tool's environment holds a secret, none runs as uid 0, none
 * has network, read from `/proc/<pid>` of each tool while it runs. One server (in this process,
 * so every tool descends from it) holds ADMIN_TOKEN and a model provider key; the process-wide
 * tool engine (the PDF engine's inspection runs below, made from `process.env`) sees another
 * ADMIN_TOKEN and the same provider key. For each tool, a real call through the HTTP API that
 * makes the service run it; the tool is held for a moment at its start (helpers/tool-catcher.ts:
 * a bubblewrap wrapper runs bwrap under strace) and what `/proc` says of it is checked:
 * - its environment holds no secret value and only locale, paths and thread limits;
 * - none of its uids or gids is 0 (root);
 * - its network namespace is not the service's, and has no interface but loopback.
 * Two runs no route makes (`pdffonts` and `qpdf --check`, the PDF engine's inspection for the
 * tests and the bench) are checked through the engine itself.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { canCatchTools, toolCatcher, type ToolCatcher, type ToolSighting } from './helpers/tool-catcher.js';
import { wav } from './helpers/wav.js';
import { scannedPdf, textPdf, textPng } from './fixtures/extract/make.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';
import { examplePdfBase64 } from '../core/catalogue.js';
import { check, inspect } from '../core/engines/pdf/inspect.js';

/** The server's admin token (test/helpers/server.ts sets it; `admin()` needs that one). */
const SERVER_ADMIN_TOKEN = 'test-admin-token';
/** The process environment's admin token, which the process-wide tool engine is made from. */
const PROCESS_ADMIN_TOKEN = `admin-${randomBytes(8).toString('hex')}`;
const PROVIDER_KEY = `sk-provider-${randomBytes(8).toString('hex')}`;
/** Variables a tool may see: paths, locale, time zone and thread limits (core/engines/tools/jail.ts). */
const HARMLESS = /^(PATH|HOME|TMPDIR|PWD|LANG|LANGUAGE|LC_[A-Z_]+|TZ|OMP_THREAD_LIMIT|MALLOC_ARENA_MAX)$/;
/**
 * How long each watched tool is held at its start: six of the catcher's 100 ms polls of `/proc`,
 * whose thread waits on the tool meanwhile. Every start of a watched tool is held (a call may
 * start ffmpeg or tesseract several times), so this is paid some twenty times over.
 */
const HOLD_MS = 600;

const b64 = (b: Buffer | Uint8Array) => Buffer.from(b).toString('base64');
const savedEnv = { ...process.env };
let fake: ModelFake;
let s: TestServer;
let key: string;
let catcher: ToolCatcher;
let origin: Server;
let originUrl: string;
let scratch: string;
let video: Buffer;
let restrictedPdf: Buffer;

before(async () => {
  if (!canCatchTools) return;
  fake = await startFake({ apiKey: PROVIDER_KEY });
  catcher = toolCatcher('tool-environ-', HOLD_MS);
  // As a deployment holds its secrets: in the process environment (the process-wide tool engine
  // reads it) and in the server's.
  Object.assign(process.env, { ADMIN_TOKEN: PROCESS_ADMIN_TOKEN, MODEL_API_KEY: PROVIDER_KEY, TOOLS_BWRAP_BIN: catcher.bin });
  scratch = mkdtempSync(join(tmpdir(), 'tool-environ-'));
  video = Buffer.from(execFileSync('sh', ['-c', `ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc=size=96x64:rate=25:duration=3 -c:v libx264 -g 25 -pix_fmt yuv420p -f mp4 ${scratch}/clip.mp4 && cat ${scratch}/clip.mp4`], { maxBuffer: 16 << 20 }));
  // Owner password only: pdf-lib refuses it, the PDF engine decrypts it with qpdf.
  execFileSync('sh', ['-c', `base64 -d > ${scratch}/plain.pdf && qpdf --encrypt '' owner-pw 256 --print=none -- ${scratch}/plain.pdf ${scratch}/restricted.pdf`], { input: examplePdfBase64() });
  restrictedPdf = readFileSync(join(scratch, 'restricted.pdf'));
  origin = createServer((req, res) => {
    if (req.url === '/report.pdf') return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(textPdf(['A report behind a URL']));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  s = await startServer({
    env: { ...fake.env, ADMIN_TOKEN: SERVER_ADMIN_TOKEN, ALLOW_PRIVATE_NETWORK: 'true', TOOLS_BWRAP_BIN: catcher.bin, DOCUMENTS_PREWARM: 'false', OFFICE_POOL_SIZE: '1' },
    serviceConfig: pluginsConfig(['extract', 'doc_text', 'documents', 'pdf_metadata', 'video_trim', 'web']),
  });
  ({ key } = await s.createKey({ credits: 100_000 }));
});
after(async () => {
  await s?.close();
  await fake?.close();
  origin?.close();
  catcher?.remove();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  for (const k of ['ADMIN_TOKEN', 'MODEL_API_KEY', 'TOOLS_BWRAP_BIN']) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});

/** What each tool was seen with must be what a confined run gets. */
function assertConfined(seen: ToolSighting[], tool: string): void {
  const mine = seen.filter((p) => p.tool === tool);
  assert.ok(mine.length > 0, `${tool} was seen running (seen: ${seen.map((p) => p.tool).join(', ') || 'nothing'})`);
  const serviceNet = readlinkSync(`/proc/${process.pid}/ns/net`);
  for (const p of mine) {
    const where = `${tool} (pid ${p.pid}: ${p.argv.join(' ').slice(0, 80)})`;
    for (const secret of [SERVER_ADMIN_TOKEN, PROCESS_ADMIN_TOKEN, PROVIDER_KEY]) assert.ok(!p.environ.some((v) => v.includes(secret)), `${where}: a secret of the service is in its environment`);
    assert.deepEqual(p.environ.map((v) => v.split('=')[0]!).filter((name) => !HARMLESS.test(name)), [], `${where}: only paths, locale and thread limits in its environment`);
    assert.ok(p.uids.every((id) => id !== 0), `${where}: uids ${p.uids.join(' ')}`);
    assert.ok(p.gids.every((id) => id !== 0), `${where}: gids ${p.gids.join(' ')}`);
    assert.notEqual(p.netns, serviceNet, `${where}: runs in the service's network namespace`);
    assert.deepEqual(p.interfaces, ['lo'], `${where}: interfaces`);
  }
}

/** A call through the API and the tools it makes the service run. */
interface Call {
  route: string;
  body: () => unknown;
  tools: string[];
}

/** Every tool, each through a route that makes the service run it (some in more than one). */
const calls: Call[] = [
  { route: '/api/v1/extract-audio', tools: ['ffprobe', 'ffmpeg'], body: () => ({ inputMethod: 'base64', audio: b64(wav(2)), prompt: 'x' }) },
  // ffmpeg downscales the image before tesseract reads it.
  { route: '/api/v1/extract-image', tools: ['ffmpeg', 'tesseract'], body: () => ({ inputMethod: 'base64', images: [b64(textPng('Tool environ'))], prompt: 'x' }) },
  { route: '/api/v1/trim-video', tools: ['ffprobe', 'ffmpeg'], body: () => ({ inputMethod: 'base64', videoUrl: b64(video), startTimestamp: '00:00:00', endTimestamp: '00:00:02' }) },
  // A page with no text layer: pdftotext finds nothing, so the page is rendered and OCRed.
  { route: '/api/v1/doc-to-text', tools: ['pdfinfo', 'pdftotext', 'pdftoppm', 'tesseract'], body: () => ({ inputMethod: 'base64', file: b64(scannedPdf('Scanned page')) }) },
  { route: '/api/v1/read-pdf-metadata', tools: ['pdfinfo'], body: () => ({ inputMethod: 'base64', files: [examplePdfBase64()] }) },
  { route: '/api/v1/write-pdf-metadata', tools: ['qpdf'], body: () => ({ inputMethod: 'base64', files: [examplePdfBase64()], metadata: { Title: 'Held' } }) },
  // An owner-password-only input (the PDF thread asks for `qpdf --decrypt`) and PDF/A (its
  // ghostscript): both on the server's tool engine (core/engines/pdf/tool-relay.ts).
  { route: '/api/v1/merge-pdfs', tools: ['qpdf', 'gs'], body: () => ({ inputMethod: 'base64', files: [b64(restrictedPdf), examplePdfBase64()], pdfa: 'PDF/A-2b' }) },
  // The web plugin's own pdftotext, fed the page on stdin.
  { route: '/api/v1/scrape', tools: ['pdftotext'], body: () => ({ url: `${originUrl}/report.pdf`, renderJs: false }) },
];

for (const c of calls) {
  test(`POST ${c.route}: every tool it runs has no secret, is not root and has no network`, { skip: !canCatchTools && 'strace is not installed (the tool catcher holds tools with it)' }, async (t) => {
    const { result: res, seen } = await catcher.during(c.tools, process.pid, () => s.call('POST', c.route, { key, body: c.body() }));
    assert.equal(res.status, 200, res.text);
    for (const tool of c.tools) await t.test(`${tool} (POST ${c.route})`, () => assertConfined(seen, tool));
  });
}

test('no route runs them: pdffonts and qpdf --check of the PDF engine’s inspection are confined too', { skip: !canCatchTools && 'strace is not installed' }, async () => {
  const pdf = Buffer.from(examplePdfBase64(), 'base64');
  const fonts = await catcher.during(['pdffonts'], process.pid, () => inspect(pdf));
  assert.equal(fonts.result.pages, 1);
  assertConfined(fonts.seen, 'pdffonts');
  const checked = await catcher.during(['qpdf'], process.pid, () => check(pdf));
  assert.ok(checked.result.ok, checked.result.output);
  assertConfined(checked.seen, 'qpdf');
});
