/**
 * Plugin tests build their contexts with the testing kit (`core/testing`: `runContext`,
 * `pluginHarness`), never by hand with a cast (issue 28): a cast hides a context that no longer
 * matches what the executor hands a plugin, so the test keeps passing against a stale shape.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

test('no plugin test casts its way to a context (as never, as RunContext)', async () => {
  const files = (await readdir(join(root, 'plugins'), { recursive: true })).filter((f) => f.endsWith('.test.ts'));
  assert.ok(files.length > 10);
  const offenders: string[] = [];
  for (const f of files) {
    const lines = (await readFile(join(root, 'plugins', f), 'utf8')).split('\n');
    lines.forEach((line, i) => {
      if (/\bas never\b|\bas (unknown as )?RunContext\b/.test(line)) offenders.push(`plugins/${f}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(offenders, []);
});
