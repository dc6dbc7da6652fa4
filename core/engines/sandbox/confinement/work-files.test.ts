/** Reading back a run's files as hostile input (issue 19, item 2): only regular files, within caps. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectWorkFiles, sanitiseName, snapshotWork } from './work-files.js';

test('only new or changed regular files come back, links and FIFOs never followed or opened', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'work-files-'));
  try {
    await writeFile(join(dir, 'kept.txt'), 'before');
    await writeFile(join(dir, 'changed.txt'), 'before');
    const before = await snapshotWork(dir);
    await writeFile(join(dir, 'changed.txt'), 'after!');
    await mkdir(join(dir, 'sub dir'));
    await writeFile(join(dir, 'sub dir', 'n\u00e9w?.csv'), 'x,y');
    await symlink('/etc/passwd', join(dir, 'passwd'));
    await symlink('/etc', join(dir, 'etc-dir'));
    execFileSync('/usr/bin/mkfifo', [join(dir, 'fifo')]);
    const { files, omitted } = await collectWorkFiles(dir, before, { maxFiles: 10, maxBytes: 1000 });
    assert.deepEqual(files.map((f) => [f.name, Buffer.from(f.data).toString()]), [['changed.txt', 'after!'], ['sub_dir/n_w_.csv', 'x,y']]);
    assert.equal(omitted, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('files past the count or byte caps are counted as omitted', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'work-files-'));
  try {
    for (let i = 0; i < 5; i++) await writeFile(join(dir, `f${i}`), 'x'.repeat(10));
    assert.deepEqual(await collectWorkFiles(dir, undefined, { maxFiles: 3, maxBytes: 1000 }).then((r) => [r.files.length, r.omitted]), [3, 2]);
    assert.deepEqual(await collectWorkFiles(dir, undefined, { maxFiles: 10, maxBytes: 25 }).then((r) => [r.files.length, r.omitted]), [2, 3]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('names keep their folders and lose every other unusual character', () => {
  assert.equal(sanitiseName('out/my report (1).txt'), 'out/my_report__1_.txt');
  assert.equal(sanitiseName('a/../b'), 'a/_/b');
  assert.equal(sanitiseName('x'.repeat(300)).length, 200);
});
