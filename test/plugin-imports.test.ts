/**
 * House style 2 and issues 11 and 29: a plugin imports only the kit (`core/sdk.ts`), the capability
 * catalogue (`core/catalogue.ts`), files of its own folder and npm packages (its tests and fake may
 * also use `core/testing`), so a plugin folder can be dropped into another deployment without
 * anything else; no engine under core/ names a plugin file; and the engine never reaches the
 * catalogue, so adding a capability touches no file of the engine.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { relativeImports as relativeImportsFrom, sourceFiles } from './helpers/import-graph.js';

const root = join(import.meta.dirname, '..');

const sources = (dir: string) => sourceFiles(root, dir);

/** Every relative import of a file, as a path from the repository root. */
const relativeImports = (file: string) => relativeImportsFrom(root, file);

/** The plugin's entry points: the kit and the capability catalogue. */
const PLUGIN_ENTRY_POINTS = new Set(['core/sdk.js', 'core/sdk.ts', 'core/catalogue.js', 'core/catalogue.ts']);

it('plugins import only core/sdk.ts, core/catalogue.ts, their own folder and npm packages', async () => {
  const problems: string[] = [];
  for (const file of await sources('plugins')) {
    const own = file.split('/').slice(0, 2).join('/') + '/';
    // A fake may be split into files named fake-<part>.ts beside fake.ts (its models, its data).
    const testing = /\.test\.ts$|\/fake(-[\w-]+)?\.ts$|\/fakes?\//.test(file);
    for (const target of await relativeImports(file)) {
      const ok = target.startsWith(own) || PLUGIN_ENTRY_POINTS.has(target) || (testing && target.startsWith('core/testing/'));
      if (!ok) problems.push(`${file} imports ${target}`);
    }
  }
  assert.deepEqual(problems, [], 'plugins may import core/sdk.ts and core/catalogue.ts (tests and fakes also core/testing), their own folder and npm packages');
});

/** The catalogue's files, and the plugin that registers it. */
const isCatalogue = (file: string) => /^core\/catalogue(\.(ts|js)$|\/)/.test(file) || file.startsWith('plugins/capabilities/');
/** `.js` specifiers name the `.ts` sources beside them. */
const sourceOf = (target: string) => target.replace(/\.js$/, '.ts');

it('the engine never reaches the catalogue, directly or through another file (adding a capability touches no engine file)', async () => {
  // Every file of core/ but the catalogue and the test kit (whose harness registers the catalogue
  // beside the plugin under test) is the engine; its tests count too.
  const engine = (await sources('core')).filter((f) => !isCatalogue(f) && !f.startsWith('core/testing/'));
  const imports = new Map<string, string[]>();
  const importsOf = async (file: string) => {
    if (!imports.has(file)) imports.set(file, (await relativeImports(file).catch(() => [])).map(sourceOf));
    return imports.get(file)!;
  };
  const problems: string[] = [];
  for (const start of engine) {
    // Breadth-first over relative imports; the first catalogue file reached is reported with its path.
    const seen = new Map<string, string[]>([[start, [start]]]);
    const queue = [start];
    while (queue.length) {
      const file = queue.shift()!;
      const trail = seen.get(file)!;
      if (isCatalogue(file)) {
        problems.push(trail.join(' → '));
        break;
      }
      for (const next of await importsOf(file)) {
        if (seen.has(next) || !/\.ts$/.test(next)) continue;
        seen.set(next, [...trail, next]);
        queue.push(next);
      }
    }
  }
  assert.deepEqual(problems, [], 'the engine learns what it needs of a capability from its definition in the registry');
});

it('the catalogue is built on the kit alone: it imports core/sdk.ts, its own files and npm packages', async () => {
  const problems: string[] = [];
  for (const file of [...(await sources('core')).filter((f) => f.startsWith('core/catalogue/')), 'core/catalogue.ts']) {
    const test = file.endsWith('.test.ts');
    for (const target of await relativeImports(file)) {
      const ok = target === 'core/sdk.js' || isCatalogue(target) || (test && target.startsWith('core/testing/'));
      if (!ok) problems.push(`${file} imports ${target}`);
    }
  }
  assert.deepEqual(problems, []);
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
