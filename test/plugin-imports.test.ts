/**
 * House style 2 and issue 11: a plugin imports only `core/sdk.ts`, files of its own folder and npm
 * packages (its tests and fake may also use `core/testing`), so a plugin folder can be dropped
 * into another deployment without anything else; and no engine under core/ names a plugin file.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';

const root = join(import.meta.dirname, '..');
const importRe = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

async function sources(dir: string): Promise<string[]> {
  return (await readdir(join(root, dir), { recursive: true })).filter((f) => /\.(ts|js|mjs)$/.test(f)).map((f) => join(dir, f));
}

/** Every relative import of a file, as a path from the repository root. */
async function relativeImports(file: string): Promise<string[]> {
  const text = await readFile(join(root, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(importRe)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (spec.startsWith('.')) out.push(relative(root, resolve(root, dirname(file), spec)));
  }
  return out;
}

it('plugins import only core/sdk.ts, their own folder and npm packages', async () => {
  const problems: string[] = [];
  for (const file of await sources('plugins')) {
    const own = file.split('/').slice(0, 2).join('/') + '/';
    const testing = /\.test\.ts$|\/fake\.ts$|\/fakes?\//.test(file);
    for (const target of await relativeImports(file)) {
      const ok = target.startsWith(own) || target === 'core/sdk.js' || target === 'core/sdk.ts' || (testing && target.startsWith('core/testing/'));
      if (!ok) problems.push(`${file} imports ${target}`);
    }
  }
  assert.deepEqual(problems, [], 'plugins may import core/sdk.ts (tests and fakes also core/testing), their own folder and npm packages');
});

it('core never names a file under plugins/ (engines know nothing of plugins)', async () => {
  const problems: string[] = [];
  for (const file of await sources('core')) {
    if (file.startsWith('core/testing/') || file.endsWith('.test.ts')) continue;
    for (const target of await relativeImports(file)) if (target.startsWith('plugins/')) problems.push(`${file} imports ${target}`);
    if (/plugins\/[a-z_]+\/[\w-]+\.(ts|js)/.test(await readFile(join(root, file), 'utf8'))) problems.push(`${file} names a plugin file`);
  }
  assert.deepEqual(problems, []);
});

it('plugins never start processes themselves: external tools run through the SDK `runTool` (confined), never child_process', async () => {
  const problems: string[] = [];
  const spawning = /(?:from\s*|import\s*\(\s*|require\s*\(\s*|^\s*import\s*)['"](?:node:)?(?:child_process|cluster)['"]|process\.binding\(|process\.dlopen\(/m;
  for (const file of await sources('plugins')) {
    // Tests and loopback fakes make their fixtures with the tools directly; they never serve a request.
    if (/\.test\.ts$|\/fake\.ts$|\/fakes?\//.test(file)) continue;
    if (spawning.test(await readFile(join(root, file), 'utf8'))) problems.push(file);
  }
  assert.deepEqual(problems, [], 'a plugin that needs an external program calls runTool from core/sdk.ts');
});
