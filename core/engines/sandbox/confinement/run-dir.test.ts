/**
 * Run directories of `commands` runs (issue 6): roots a crashed service left mounted are swept at
 * the next start, and closing one engine never pulls the root from under a run of the other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { makeRunDir, removeRunRoot } from './run-dir.js';

const root = process.geteuid?.() === 0;
const mountedAt = (dir: string) => readFileSync('/proc/mounts', 'utf8').split('\n').some((l) => l.split(' ')[1] === dir);

test('a root left mounted by a dead service is unmounted and removed at the next start', { skip: !root && 'needs root to mount' }, async () => {
  const deadPid = spawnSync('/bin/true').pid!;
  const stale = join(tmpdir(), `code-sandbox-${deadPid}-stale`);
  mkdirSync(stale, { recursive: true });
  execFileSync('/bin/mount', ['-t', 'tmpfs', '-o', 'size=8m', 'code-sandbox', stale]);
  writeFileSync(join(stale, 'left-behind'), 'x'.repeat(1024));
  // A run directory of that service, mounted below its root.
  mkdirSync(join(stale, 'run'));
  execFileSync('/bin/mount', ['-t', 'tmpfs', '-o', 'size=8m', 'code-sandbox', join(stale, 'run')]);
  assert.ok(mountedAt(stale));

  const dir = await makeRunDir(null, 64);
  assert.equal(mountedAt(stale), false);
  assert.equal(mountedAt(join(stale, 'run')), false);
  assert.equal(existsSync(stale), false);
  // This process's own root is named after its pid; the run directory is a tmpfs of its own.
  const own = dirname(dir.path);
  assert.match(own, new RegExp(`code-sandbox-${process.pid}-`));
  assert.ok(mountedAt(dir.path));
  await dir.remove();
  assert.equal(mountedAt(dir.path), false);
  await removeRunRoot();
  assert.equal(existsSync(own), false);
});

test('closing while another run is making its directory leaves that run its directory', async () => {
  // The first run creates the root; an engine closes meanwhile (the other engine's run is live).
  const making = makeRunDir(null, 64);
  await removeRunRoot();
  const dir = await making;
  writeFileSync(join(dir.path, 'file'), 'still here');
  assert.equal(readFileSync(join(dir.path, 'file'), 'utf8'), 'still here');
  await removeRunRoot();
  assert.ok(existsSync(dir.path), 'a root in use is left alone');
  await dir.remove();
  await removeRunRoot();
  assert.equal(existsSync(dirname(dir.path)), false);
});
