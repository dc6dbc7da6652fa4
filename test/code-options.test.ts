/**
 * The run options the original's clients send (issue 19, item 2), black-box through the real
 * server: `timeout` (ms) and `memory` (MB) honoured as lower limits within the service's caps,
 * with the applied limits in the answer, and `saveOutputFiles` handing back what the code wrote
 * in its working directory as signed links — and storing nothing without it.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { failed, ok, startCodeLane, type CodeLane } from './helpers/code-lane.js';

let lane: CodeLane;

before(async () => {
  lane = await startCodeLane('options-secret-9b17', {});
});

after(() => lane?.close());

/** Files in the server's file store. */
const storedFiles = async () => (await readdir(join(lane.server.dataDir, 'files')).catch(() => [])).length;

describe('timeout and memory (issue 19, item 2)', () => {
  it('a shorter timeout ends the run at it, in both languages', async () => {
    // Both languages at once: each run only waits out its limit.
    const runs = ([
      [lane.py, 'import time\ntime.sleep(5)'],
      [lane.js, 'await new Promise((r) => setTimeout(r, 5000))'],
    ] as const).map(async ([run, code]) => {
      const started = Date.now();
      const res = await run({ code, timeout: 1500 });
      return { res, took: Date.now() - started };
    });
    for (const { res, took } of await Promise.all(runs)) {
      const e = failed(res);
      assert.deepEqual([e.name, e.value], ['TimeoutError', 'Execution timed out after 1.5 seconds.']);
      assert.ok(took < 4000, `answered after ${took} ms`);
    }
  });

  it('the answer says which limits applied: asked, clamped to the caps, or the caps', async () => {
    const asked = await lane.py({ code: 'print(1)', timeout: 3000, memory: 100 });
    assert.deepEqual(ok(asked).stdout, ['1']);
    assert.deepEqual(asked.json.limits, { timeoutMs: 3000, memoryMb: 100 });
    const above = await lane.js({ code: 'console.log(1)', timeout: 600_000, memory: 100_000 });
    assert.deepEqual(above.json.limits, { timeoutMs: 10_000, memoryMb: 128 });
    const none = await lane.py({ code: 'print(1)' });
    assert.deepEqual(none.json.limits, { timeoutMs: 10_000, memoryMb: 512 });
    const below = await lane.js({ code: 'console.log(1)', timeout: 1, memory: 1 });
    assert.deepEqual(below.json.limits, { timeoutMs: 100, memoryMb: 8 });
  });

  it('a smaller memory limit holds: what fits the cap fails under the lower limit', async () => {
    const code = 'block = bytearray(150 * 1024 * 1024)\nprint(len(block) // 2**20)';
    assert.deepEqual(ok(await lane.py({ code })).stdout, ['150']);
    const low = failed(await lane.py({ code, memory: 64 }));
    assert.equal(low.name, 'MemoryError');
    // The uid's limit is back at the cap for the next run.
    assert.deepEqual(ok(await lane.py({ code })).stdout, ['150']);
    const js = failed(await lane.js({ code: 'const a = []; while (true) a.push(new Array(1e5).fill(1))', memory: 16 }));
    assert.deepEqual([js.name, js.value], ['MemoryLimitError', 'The code exceeded the memory limit of 16 MB.']);
    assert.deepEqual(ok(await lane.js({ code: 'console.log(new Array(4e6).fill(1).length)' })).stdout, ['4000000']);
  });

  it('answers 400 for a limit that is not a positive number, and charges nothing', async () => {
    const credits = await lane.credits();
    const cases: [Record<string, unknown>, string][] = [
      [{ timeout: '2000' }, 'timeout must be a number of milliseconds greater than 0.'],
      [{ timeout: -5 }, 'timeout must be a number of milliseconds greater than 0.'],
      [{ memory: true }, 'memory must be a number of megabytes greater than 0.'],
      [{ memory: 0 }, 'memory must be a number of megabytes greater than 0.'],
      [{ saveOutputFiles: 'yes' }, 'saveOutputFiles must be a boolean.'],
    ];
    for (const [extra, message] of cases) {
      for (const run of [lane.py, lane.js]) {
        const res = await run({ code: 'print(1)', ...extra });
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(res.json, { error: message });
      }
    }
    assert.equal(await lane.credits(), credits);
  });
});

describe('saveOutputFiles (issue 19, item 2)', () => {
  it('hands back what the code wrote as signed links, names sanitised, nothing but regular files', async () => {
    const code = `import os
os.makedirs("out/deep", exist_ok=True)
open("result.csv", "w").write("a,b\\n1,2\\n")
open("out/deep/my report (final)!.txt", "w").write("done")
os.symlink("/etc/passwd", "passwd-link")
os.mkfifo("pipe")
print("wrote")`;
    const before = await lane.credits();
    const res = await lane.py({ code, saveOutputFiles: true });
    assert.deepEqual(ok(res).stdout, ['wrote']);
    const files = res.json.files as { name: string; url: string; size: number }[];
    assert.deepEqual(files.map((f) => [f.name, f.size]), [['out/deep/my_report__final__.txt', 4], ['result.csv', 8]]);
    const downloaded = await fetch(files[1]!.url);
    assert.equal(downloaded.status, 200);
    assert.equal(await downloaded.text(), 'a,b\n1,2\n');
    assert.match(downloaded.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(files[0]!.url, /\/files\/[^/?]+\?expires=\d+&sig=[0-9a-f]+$/);
    const expires = Number(new URL(files[0]!.url).searchParams.get('expires'));
    assert.ok(Math.abs(expires * 1000 - Date.now() - 24 * 3600_000) < 120_000, 'links are valid 24 hours');
    assert.equal(await lane.credits(), before - 50);
  });

  it('stores nothing without it, and nothing for a run that fails', async () => {
    const stored = await storedFiles();
    const res = await lane.py({ code: 'open("result.txt", "w").write("x")\nprint("ok")' });
    assert.deepEqual(ok(res).stdout, ['ok']);
    assert.equal(res.json.files, undefined);
    failed(await lane.py({ code: 'open("result.txt", "w").write("x")\nraise ValueError("no")', saveOutputFiles: true }));
    assert.equal(await storedFiles(), stored);
  });

  it('counts only what the code wrote after commands, and caps the number of files', async () => {
    const res = await lane.py({
      commands: 'mkdir -p .packages && echo installed > .packages/marker.txt && echo seed > seed.txt',
      code: 'open("seed.txt", "a").write("more")\nfor i in range(105):\n    open(f"f{i:03}.txt", "w").write(str(i))',
      saveOutputFiles: true,
    });
    ok(res);
    const names = (res.json.files as { name: string }[]).map((f) => f.name);
    assert.equal(names.length, 100);
    assert.deepEqual(names.slice(0, 2), ['f000.txt', 'f001.txt']);
    assert.ok(!names.some((n) => n.includes('marker')), 'what the commands installed is not returned');
    // seed.txt sorts after the f*.txt files: the one changed file beyond the cap is counted, not lost silently.
    assert.equal(res.json.filesOmitted, 6);
  });

  it('JavaScript code has no file system: its files are always empty', async () => {
    const res = await lane.js({ code: 'console.log("no fs")', saveOutputFiles: true });
    assert.deepEqual(ok(res).stdout, ['no fs']);
    assert.deepEqual(res.json.files, []);
  });
});
