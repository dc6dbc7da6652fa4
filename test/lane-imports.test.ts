/**
 * Issue 29: no lane imports another (what two lanes share lives at `server/` top level or in
 * `core/`), every lane reaches the executor through the one lane adapter, and core imports
 * nothing from the server.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { relativeImports as relativeImportsFrom, sourceFiles } from './helpers/import-graph.js';

const root = join(import.meta.dirname, '..');
const LANES = ['v1', 'v2', 'mcp', 'admin', 'console'];

const sources = (dir: string) => sourceFiles(root, dir);

/** Every relative import of a file, as a path from the repository root. */
const relativeImports = (file: string) => relativeImportsFrom(root, file);

/** The lane folder a repository path is in, if any. */
function laneOf(path: string): string | undefined {
  const [top, folder] = path.split('/');
  return top === 'server' && folder && LANES.includes(folder) ? folder : undefined;
}

it('no file of a lane (server/v1, v2, mcp, admin, console) imports another lane', async () => {
  const problems: string[] = [];
  for (const lane of LANES) {
    for (const file of await sources(`server/${lane}`)) {
      for (const target of await relativeImports(file)) {
        const other = laneOf(target);
        if (other && other !== lane) problems.push(`${file} imports ${target}`);
      }
    }
  }
  assert.deepEqual(problems, [], 'move what two lanes share to server/ top level or core/');
});

it('the lane check sees a cross-lane import (it is not vacuous)', () => {
  assert.equal(laneOf(relative(root, resolve(root, 'server/mcp', '../v1/routes.js'))), 'v1');
  assert.equal(laneOf('server/legacy-routes.ts'), undefined);
});

it('core imports nothing from server/', async () => {
  const problems: string[] = [];
  for (const file of await sources('core')) {
    for (const target of await relativeImports(file)) if (target.startsWith('server/')) problems.push(`${file} imports ${target}`);
  }
  assert.deepEqual(problems, []);
});

it('lanes call the executor only through the lane adapter (core/lane/adapter.ts)', async () => {
  const laneFiles = [...(await Promise.all(['server/v1', 'server/v2', 'server/mcp', 'server/admin', 'server/console', 'core/jobs', 'core/monitors'].map(sources))).flat()];
  const problems: string[] = [];
  for (const file of laneFiles) {
    if (file.endsWith('.test.ts')) continue;
    if (/\bexecutor\.execute\(/.test(await readFile(join(root, file), 'utf8'))) problems.push(file);
  }
  assert.deepEqual(problems, [], 'call LaneAdapter.run instead of executor.execute');
});
