/**
 * The local-tool engine (issue 24): image headers read without decoding, playlists refused,
 * runs confined (environment, uid, network, file system), memory and cancellation outcomes, and
 * the fair gate. Black-box checks through the real server are in test/tool-confinement.test.ts.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { Gate, ToolError, runGatedTool, runTool, withScratch, type ToolEngine, type ToolRunOptions } from '../../plugin/local-tools.js';
import { admitImage, readImageHeader } from './image-header.js';
import { refuseReferencing } from './media-guard.js';
import { createToolEngine } from './index.js';

const log = { warn: () => undefined, info: () => undefined, error: () => undefined, debug: () => undefined } as never;
const engine = createToolEngine({ env: { TOOLS_MEMORY_MB: '48', SECRET_TOKEN: 'do-not-leak' }, log });
after(() => engine.close());

/** A PNG of `width`×`height` grey pixels, all zero (only the first `rows` present: enough for a header test). */
function greyPng(width: number, height: number, rows = 64): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    return Buffer.concat([len, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc((width + 1) * Math.min(height, rows)))), chunk('IEND', Buffer.alloc(0))]);
}

test('image headers: size and format of PNG, JPEG, GIF, WebP, BMP and TIFF, read without decoding', () => {
  withScratchSync((dir) => {
    for (const ext of ['png', 'jpg', 'gif', 'webp', 'bmp', 'tiff']) {
      const file = join(dir, `t.${ext}`);
      execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=321x123', '-frames:v', '1', file]);
      const h = readImageHeader(readFileSync(file));
      assert.deepEqual(h && { w: h.width, h: h.height }, { w: 321, h: 123 }, ext);
    }
  });
  assert.equal(readImageHeader(Buffer.from('#EXTM3U\n')), undefined);
  assert.deepEqual(readImageHeader(greyPng(16000, 16000)), { format: 'png', width: 16000, height: 16000 });
  assert.throws(() => admitImage(greyPng(16000, 16000), 'images[0]', 50_000_000), { status: 400, message: "'images[0]' is too large: 16000×16000 pixels (256 megapixels); images may have at most 50 megapixels." });
  assert.throws(() => admitImage(Buffer.from('#EXTM3U\n'), 'image', 50_000_000), { status: 400, message: "'image' is not a supported image: send PNG, JPEG, GIF, WebP, BMP or TIFF." });
});

test('playlists and stream descriptions are refused before any tool opens them', () => {
  for (const [text, what] of [
    ['#EXTM3U\n#EXTINF:10,\n/etc/hosts.mp4\n', /HLS/],
    ['<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011">', /DASH/],
    ['ffconcat version 1.0\nfile /etc/a.wav\n', /ffconcat/],
    ['v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\n', /SDP/],
  ] as const) {
    assert.throws(() => refuseReferencing(Buffer.from(text), 'audio'), { status: 400, message: what });
  }
  refuseReferencing(Buffer.from('RIFF\0\0\0\0WAVEfmt '), 'audio');
});

test('a tool run has none of the service environment, its own uid, no network and only its scratch folder', async () => {
  await withScratch('tools-test', async (dir) => {
    writeFileSync(join(dir, 'in.txt'), 'hello');
    const script = `cat /proc/self/environ | tr '\\0' '\\n'; echo uid=$(id -u); cat ${dir}/in.txt; echo; ls /; cat /proc/net/dev; readlink /proc/self/ns/net; echo out > ${dir}/out.txt`;
    const r = await engine.run('sh', ['-c', script], { timeoutMs: 10_000, dirs: [dir] });
    const out = r.stdout.toString();
    assert.doesNotMatch(out, /SECRET_TOKEN|do-not-leak|ADMIN_TOKEN/);
    assert.match(out, /^PATH=\/usr\/bin:\/bin$/m);
    if (process.getuid?.() === 0) assert.doesNotMatch(out, /^uid=0$/m);
    assert.match(out, /hello/);
    assert.doesNotMatch(out, /^(home|root|var|srv|work|data)$/m, 'no host folders but /usr');
    assert.doesNotMatch(out, /eth|ens|wlan/, 'only a loopback interface');
    assert.notEqual(out.trim().split('\n').find((l) => l.startsWith('net:')), readlinkSync('/proc/self/ns/net'));
    assert.equal(readFileSync(join(dir, 'out.txt'), 'utf8'), 'out\n');
    // A folder not handed to the run is not there.
    await assert.rejects(engine.run('cat', ['/etc/hostname'], { timeoutMs: 10_000 }), (e: ToolError) => e.kind === 'exit');
  });
});

test('a tool over its memory limit is a service fault; a cancelled one is killed with its tree', async () => {
  await withScratch('tools-test', async (dir) => {
    const big = join(dir, 'big.png');
    writeFileSync(big, greyPng(6000, 6000, 6000));
    const e = await engine.run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', big, '-vf', 'scale=6000:6000,format=rgba', '-f', 'null', '-'], { timeoutMs: 60_000, dirs: [dir] }).then(
      () => undefined,
      (err: ToolError) => err,
    );
    assert.ok(e instanceof ToolError && e.kind === 'memory' && e.serviceFault, String(e));
  });
  const ac = new AbortController();
  const run = runTool('sh', ['-c', 'sleep 60 & sleep 60'], { timeoutMs: 120_000, signal: ac.signal, tools: engine });
  setTimeout(() => ac.abort(new Error('hang-up')), 300);
  await assert.rejects(run, (e: ToolError) => e.kind === 'cancelled' && !e.serviceFault);
  // Both sleeps ran as the run's uid inside its pid namespace: nothing of them is left.
  assert.equal(execFileSync('sh', ['-c', "ps -eo args | grep -c '^sleep 60$' || true"]).toString().trim(), '0');
});

test('the gate serves callers in turn: a second caller waits for one job of the first, not its backlog', async () => {
  const gate = new Gate(1);
  const order: string[] = [];
  const releases: (() => void)[] = [];
  const job = (who: string) => gate.run(() => new Promise<void>((r) => releases.push(() => (order.push(who), r()))), undefined, who.slice(0, 1));
  const all = [job('a1'), job('a2'), job('a3'), job('a4')];
  await new Promise((r) => setImmediate(r));
  all.push(job('b1'));
  while (order.length < 5) {
    await new Promise((r) => setImmediate(r));
    releases.shift()?.();
  }
  await Promise.all(all);
  assert.deepEqual(order, ['a1', 'b1', 'a2', 'a3', 'a4']);
});

test("runGatedTool runs on the call's engine with its signal, time limit and caller, in turn through the plugin's gate", async () => {
  const seen: { cmd: string; opts: ToolRunOptions }[] = [];
  let finish = () => {};
  const engine: ToolEngine = {
    imageMaxPixels: 1,
    admitImage: () => assert.fail('not used'),
    run: (cmd, _args, opts) => {
      seen.push({ cmd, opts });
      return new Promise((r) => (finish = () => r({ stdout: Buffer.from(cmd), stderr: '', code: 0 })));
    },
  };
  const gate = new Gate(1);
  const first = runGatedTool({ gate, timeoutMs: 1234, tools: engine, caller: 'key-a' }, 'pdfinfo', ['x'], { maxBytes: 99 });
  const hangUp = new AbortController();
  const waiting = runGatedTool({ gate, signal: hangUp.signal, timeoutMs: 1, tools: engine, caller: 'key-b' }, 'tesseract', []);
  await new Promise((r) => setImmediate(r));
  // One slot: the second call waits for it, and its caller's hang-up drops it before it runs.
  assert.deepEqual(seen.map((s) => s.cmd), ['pdfinfo']);
  assert.deepEqual({ ...seen[0]!.opts, dirs: undefined }, { maxBytes: 99, signal: undefined, timeoutMs: 1234, owner: 'key-a', dirs: undefined });
  hangUp.abort(new Error('hung up'));
  await assert.rejects(waiting, /hung up/);
  finish();
  assert.equal((await first).stdout.toString(), 'pdfinfo');
  const third = runGatedTool({ gate, timeoutMs: 5, tools: engine, caller: 'key-c' }, 'qpdf', []);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen.map((s) => s.cmd), ['pdfinfo', 'qpdf'], 'the dropped call never ran; its slot went to the next');
  finish();
  await third;
});

/** A synchronous scratch folder for fixtures made with execFileSync. */
function withScratchSync(fn: (dir: string) => void): void {
  const dir = execFileSync('mktemp', ['-d']).toString().trim();
  try {
    fn(dir);
  } finally {
    execFileSync('rm', ['-rf', dir]);
  }
}

test('without a usable bubblewrap, a run still gets a cleared environment, its own uid and its limits', async () => {
  const degraded = createToolEngine({ env: { TOOLS_BWRAP_BIN: '/nonexistent/bwrap', SECRET_TOKEN: 'do-not-leak' }, log });
  try {
    const out = (await degraded.run('sh', ['-c', 'env; echo uid=$(id -u)'], { timeoutMs: 10_000 })).stdout.toString();
    assert.doesNotMatch(out, /SECRET_TOKEN|do-not-leak/);
    if (process.getuid?.() === 0) assert.doesNotMatch(out, /^uid=0$/m);
  } finally {
    await degraded.close();
  }
});
