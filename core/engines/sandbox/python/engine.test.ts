/** The Python engine's confinement as seen from inside a run (issue 6). */
import { test } from 'node:test';
import { readdirSync } from 'node:fs';
import assert from 'node:assert/strict';
import { PythonSandboxEngine } from './engine.js';
import { loadSandboxSettings } from '../settings.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

test('a Python sandbox runs unprivileged with its own uid, empty env and rlimits', async () => {
  const engine = new PythonSandboxEngine(loadSandboxSettings({ SANDBOX_MAX_CONCURRENT: '2' }), silent);
  try {
    const code = `import os, resource
print(os.getuid() != 0, sorted(os.environ), os.getcwd())
print(resource.getrlimit(resource.RLIMIT_NPROC)[0], resource.getrlimit(resource.RLIMIT_AS)[0] // 2**20)
print(open("/proc/self/status").read().split("CapEff:")[1].split()[0])`;
    const r = await engine.run({ code });
    assert.equal(r.error, undefined, JSON.stringify(r));
    assert.deepEqual(r.stdout, [
      "True ['HOME', 'LANG', 'PATH', 'PWD', 'PYTHONDONTWRITEBYTECODE', 'PYTHONIOENCODING', 'PYTHONUNBUFFERED'] /work",
      '64 512',
      '0000000000000000',
    ]);
    const t = await engine.run({ code: 'import time\nprint("start", flush=True)\ntime.sleep(30)', timeoutMs: 500 });
    assert.equal(t.error?.name, 'TimeoutError');
    assert.equal(t.error?.value, 'Execution timed out after 0.5 seconds.');
  } finally {
    await engine.close();
  }
});

test('commands no process can be given fail as a CommandsError and leave no socket or descriptor behind', async () => {
  const engine = new PythonSandboxEngine(loadSandboxSettings({ SANDBOX_MAX_CONCURRENT: '2' }), silent);
  const fds = () => readdirSync('/proc/self/fd').length;
  try {
    await engine.run({ code: 'print(1)', commands: 'true' });
    const before = fds();
    for (let i = 0; i < 10; i++) {
      // The HTTP lane refuses a NUL with 400 first; the engine must still clean up on its own.
      const r = await engine.run({ code: 'print(1)', commands: 'true\u0000' });
      assert.equal(r.error?.name, 'CommandsError', JSON.stringify(r));
      assert.equal(r.error?.value, 'commands could not be started');
    }
    assert.ok(fds() - before <= 1, `open fds went from ${before} to ${fds()}`);
  } finally {
    await engine.close();
  }
});
