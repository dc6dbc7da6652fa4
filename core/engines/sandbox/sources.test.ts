/**
 * The code that runs inside the sandboxes is real source, checked like the rest (issue 11, part
 * 4): the isolate bootstrap and the commands forwarder pass the type checker with their own
 * jsconfig.json, runner.py compiles, and the build's copy step ships every file the engines read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyAssets } from './assets.js';
import { ISOLATE_FILES, runtimeSource } from './js/runtime.js';
import { RUNNER_PATH } from './python/runner.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

for (const config of ['js/isolate/jsconfig.json', 'confinement/jsconfig.json']) {
  test(`${config} type-checks the sandboxed JavaScript without errors`, () => {
    const r = spawnSync(process.execPath, [TSC, '-p', join(HERE, config)], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });
}

test('runner.py compiles', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'runner-pyc-'));
  try {
    // Compiled to a temp file, so no __pycache__ lands in the source tree.
    const script = 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)';
    execFileSync('/usr/bin/python3', ['-c', script, RUNNER_PATH, join(dir, 'runner.pyc')], { stdio: 'pipe' });
    assert.ok(existsSync(join(dir, 'runner.pyc')));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the build ships every file the engines read, and the bootstrap composes from the copy', async () => {
  const dist = await mkdtemp(join(tmpdir(), 'sandbox-dist-'));
  try {
    const copied = await copyAssets(HERE, dist);
    const needed = [...ISOLATE_FILES.map((f) => `js/isolate/${f}`), 'python/runner.py', 'confinement/forwarder.cjs'];
    for (const f of needed) assert.ok(copied.includes(f), `${f} is not copied by the build (copied: ${copied.join(', ')})`);
    for (const f of needed) assert.equal(await readFile(join(dist, f), 'utf8'), await readFile(join(HERE, f), 'utf8'));
    const source = runtimeSource(join(dist, 'js/isolate'));
    assert.equal(source, runtimeSource(join(HERE, 'js/isolate')));
    assert.match(source, /^'use strict';\n/);
    // The closure parses as evalClosure will wrap it (parsed only, never run on the host).
    assert.doesNotThrow(() => new Function('$0', '$1', '$2', '$3', '$4', '$5', '$6', source));
  } finally {
    await rm(dist, { recursive: true, force: true });
  }
});
