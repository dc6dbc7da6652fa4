import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile, readFile, stat, chmod, symlink, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyTree } from './copy-tree.js';

test('copyTree copies files, folders, links and modes as independent files', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'copy-tree-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const src = join(root, 'src');
  await mkdir(join(src, 'base', '1'), { recursive: true });
  await writeFile(join(src, 'PG_VERSION'), '17\n');
  await writeFile(join(src, 'base', '1', 'rel'), Buffer.alloc(70_000, 7));
  await chmod(join(src, 'PG_VERSION'), 0o600);
  await symlink('base/1/rel', join(src, 'link'));
  await chmod(src, 0o700);

  const dest = join(root, 'dest');
  await copyTree(src, dest);

  assert.equal(await readFile(join(dest, 'PG_VERSION'), 'utf8'), '17\n');
  assert.deepEqual(await readFile(join(dest, 'base', '1', 'rel')), Buffer.alloc(70_000, 7));
  assert.equal(await readlink(join(dest, 'link')), 'base/1/rel');
  assert.equal((await stat(dest)).mode & 0o777, 0o700);
  assert.equal((await stat(join(dest, 'PG_VERSION'))).mode & 0o777, 0o600);
  // PostgreSQL writes its files in place: the copy must not share them with the template.
  assert.equal((await stat(join(dest, 'base', '1', 'rel'))).nlink, 1);
  await writeFile(join(dest, 'base', '1', 'rel'), 'changed');
  assert.deepEqual(await readFile(join(src, 'base', '1', 'rel')), Buffer.alloc(70_000, 7));
});

test('copyTree writes into a folder a copy cut short left behind', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'copy-tree-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const src = join(root, 'src');
  await mkdir(src);
  await writeFile(join(src, 'a'), 'whole');
  const dest = join(root, 'dest');
  await mkdir(dest);
  await writeFile(join(dest, 'a'), 'cut');
  await copyTree(src, dest);
  assert.equal(await readFile(join(dest, 'a'), 'utf8'), 'whole');
});
