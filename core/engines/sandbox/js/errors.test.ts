/**
 * How a worker's death becomes a run's error (errors.ts `crashError`). The OOM case cannot be
 * staged through the server on demand (the isolate's heap limit stops code long before the
 * worker's cgroup fills), so the precedence is pinned here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crashError } from './errors.js';

const msg = { timeoutMs: 2000, memoryMb: 64 };

test('a worker the OOM killer hit during the run is a memory error, even when the backstop fired too', () => {
  const e = crashError({ timedOut: true, oom: true, stderr: '', signal: 'SIGKILL', code: null, msg });
  assert.deepEqual(e, { name: 'MemoryLimitError', value: 'The code exceeded the memory limit of 64 MB.', traceback: '' });
});

test('without the OOM killer, the backstop is a timeout, whatever stderr says', () => {
  const e = crashError({ timedOut: true, oom: false, stderr: 'heap', signal: 'SIGKILL', code: null, msg });
  assert.equal(e.name, 'TimeoutError');
  assert.equal(crashError({ timedOut: false, oom: false, stderr: 'JavaScript heap out of memory', signal: 'SIGABRT', code: null, msg }).name, 'MemoryLimitError');
  assert.equal(crashError({ timedOut: false, oom: false, stderr: '', signal: 'SIGSEGV', code: null, msg }).name, 'SandboxCrashError');
});
