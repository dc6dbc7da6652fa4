/**
 * `npm run new-provider` (issue 29): it refuses a bad id, a taken id and an unknown capability
 * without writing anything, and for two capabilities of different kinds it writes a provider
 * folder that imports only the plugin entry points, type-checks, is listed in plugins.config.ts,
 * and passes its own test (the provider fault suite included) as generated. For every other
 * capability of the catalogue it writes a provider that type-checks (so each has an input its
 * checks accept); running all of their tests takes minutes: `npm run check:new-provider`.
 *
 * Everything is written into a scratch tree laid out like the repository (`--root`): its own copy
 * of plugins.config.ts and its own plugins/ (the shipped plugins linked in), with core/ and
 * node_modules linked. The real plugins/ and plugins.config.ts are never touched, so the test
 * files that run beside this one read what they always read.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { access, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { catalogue } from '../core/catalogue.js';
import { runNewProvider, scaffold } from '../scripts/new-provider.js';
import { REPO as repo, removeTree, runIn, runTestFile, scratchTree, type Ran, type ScratchTree } from '../scripts/new-provider-tree.js';
import { typeErrorsOf } from './helpers/type-check.js';

const exists = (p: string) => access(p).then(() => true, () => false);

/** The scaffold through its npm script, as a user runs it, writing into `root`. */
const newProvider = (root: string, ...args: string[]) => runIn(repo, 'npm', ['run', '--silent', 'new-provider', '--', ...args, '--root', root]);
/** The same script without npm in between (a refusal: quicker, same answers). */
const newProviderScript = (root: string, ...args: string[]) => runIn(repo, process.execPath, ['--no-node-snapshot', '--import', 'tsx', 'scripts/new-provider.ts', ...args, '--root', root]);
/** The command in this process: what the script runs behind its process shim (the other refusals). */
async function newProviderHere(root: string, ...args: string[]): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const code = await runNewProvider([...args, '--root', root], { stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) } });
  return { code, stdout, stderr };
}

const importRe = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The relative imports of a generated file, as paths from the tree's root. */
async function importsOf(root: string, file: string): Promise<string[]> {
  const text = await readFile(join(root, file), 'utf8');
  return [...text.matchAll(importRe)].map((m) => (m[1] ?? m[2])!).filter((s) => s.startsWith('.')).map((s) => relative(root, resolve(root, dirname(file), s)));
}

describe('npm run new-provider', () => {
  let tree: ScratchTree;
  let originalConfig: string;
  before(async () => {
    tree = await scratchTree();
    originalConfig = await readFile(join(tree.root, 'plugins.config.ts'), 'utf8');
  });
  after(async () => {
    if (tree) await removeTree(tree);
  });

  it('refuses a bad id, a taken id, an unknown or missing capability, and writes nothing', async () => {
    // One refusal as a real process (its exit code and stderr), the others in this process.
    const badIds = ['Weather-A', '1weather', 'weather__a'];
    const [taken, unknown, missing, ...bad] = await Promise.all([
      newProviderScript(tree.root, 'answer_a', '--capability', 'answer_question'),
      newProviderHere(tree.root, 'weather_a', '--capability', 'make_coffee'),
      newProviderHere(tree.root, 'weather_a'),
      ...badIds.map((id) => newProviderHere(tree.root, id, '--capability', 'answer_question')),
    ]);
    bad.forEach((r, i) => {
      assert.equal(r.code, 1, badIds[i]);
      assert.match(r.stderr, /is not a valid provider id: snake_case/, badIds[i]);
    });
    assert.deepEqual([taken.code, taken.stderr.trim()], [1, 'plugins/answer_a already exists: choose another id.']);

    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^Unknown capability 'make_coffee'\. Known capabilities: /);
    for (const cap of catalogue) assert.ok(unknown.stderr.includes(` ${cap.id},`) || unknown.stderr.includes(` ${cap.id}.`), `lists ${cap.id}`);

    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Name the capability it serves with --capability\.\nusage: npm run new-provider -- <id> --capability <capability>/);

    assert.equal(await readFile(join(tree.root, 'plugins.config.ts'), 'utf8'), originalConfig);
    assert.equal(await exists(join(tree.root, 'plugins', 'weather_a')), false);
  });

  // Two kinds: a public capability priced per reported unit, and a v1-only one with three required
  // fields and cross-field checks, priced per minute.
  const cases = [
    { id: 'quick_answers', capability: 'answer_question' },
    { id: 'clip_cutter', capability: 'trim_video' },
  ];

  it('writes the folder and one line of plugins.config.ts for each capability', async () => {
    // The first through npm, as a user runs it (its exit code and output); the second in this
    // process, the same command without the seconds of CPU an npm and a tsx process cost.
    for (const [i, { id, capability }] of cases.entries()) {
      const r = await (i === 0 ? newProvider : newProviderHere)(tree.root, id, '--capability', capability);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`Wrote plugins/${id}/index\\.ts, .*plugins\\.config\\.ts\\.`));
      assert.deepEqual((await readdir(join(tree.root, 'plugins', id))).sort(), ['README.md', 'client.ts', 'fake.ts', 'index.ts', `${id}.test.ts`].sort());
    }
    const added = (await readFile(join(tree.root, 'plugins.config.ts'), 'utf8')).split('\n').filter((line) => !originalConfig.split('\n').includes(line));
    assert.deepEqual(added, cases.map(({ id }) => `    ${id}: () => import('./plugins/${id}/index.js'),`));

    // The tree's config loads each new plugin under its id.
    const config = (await import(join(tree.root, 'plugins.config.ts'))).default;
    for (const { id, capability } of cases) {
      const plugin = (await config.plugins[id]()).default;
      assert.deepEqual([plugin.id, plugin.implements.map((i: { capability: string }) => i.capability)], [id, [capability]]);
    }

    // A second run with the same id is refused and changes nothing.
    const again = await newProviderHere(tree.root, cases[0]!.id, '--capability', 'scrape_page');
    assert.equal(again.code, 1);
    assert.equal((await readFile(join(tree.root, 'plugins.config.ts'), 'utf8')).split('\n').length, originalConfig.split('\n').length + cases.length);
  });

  // In-process (the command's refusals and messages are covered above): a capability whose own
  // checks refuse every input the scaffold can build (no example, a rule the schema cannot say) fails here.
  const others = catalogue.filter((c) => !cases.some((k) => k.capability === c.id)).map((c) => ({ id: `gen_${c.id}`, capability: c.id }));
  it(`writes a provider for each of the other ${others.length} capabilities of the catalogue`, async () => {
    const refused: string[] = [];
    for (const one of others) await scaffold({ ...one, root: tree.root }).catch((err: Error) => refused.push(`${one.capability}: ${err.message}`));
    assert.deepEqual(refused, []);
  });

  it('the generated code imports only the kit and the catalogue (fake and test also core/testing)', async () => {
    for (const { id } of [...cases, ...others]) {
      for (const file of ['index.ts', 'client.ts', 'fake.ts', `${id}.test.ts`]) {
        const testing = file === 'fake.ts' || file.endsWith('.test.ts');
        for (const target of await importsOf(tree.root, join('plugins', id, file))) {
          const ok = target.startsWith(`plugins/${id}/`) || ['core/sdk.js', 'core/catalogue.js'].includes(target) || (testing && target === 'core/testing/index.js');
          assert.ok(ok, `plugins/${id}/${file} imports ${target}`);
        }
      }
    }
  });

  it('the generated folders type-check, for every capability', async () => {
    // The repository's compiler options, over the generated folders (every error in their files;
    // core/, which they import, is type-checked whole by `npm test` before the tests run); no
    // rootDir, since core/ is reached through a link.
    const { rootDir: _r, outDir: _o, ...options } = JSON.parse(await readFile(join(repo, 'tsconfig.json'), 'utf8')).compilerOptions;
    const config = { compilerOptions: { ...options, noEmit: true }, include: [...cases, ...others].map(({ id }) => `plugins/${id}/**/*.ts`) };
    await writeFile(join(tree.root, 'tsconfig.generated.json'), JSON.stringify(config));
    assert.equal(typeErrorsOf(join(tree.root, 'tsconfig.generated.json')), '');
  });

  for (const { id, capability } of cases) {
    it(`the ${capability} provider passes its own test as generated`, async () => {
      const r = await runTestFile(join(tree.root, 'plugins', id, `${id}.test.ts`));
      assert.equal(r.code, 0, r.stdout.slice(-3000) + r.stderr);
      assert.match(r.stdout, /^# fail 0$/m);
      // The fault suite's eleven tests and the three of its own.
      const passed = Number(/^# pass (\d+)$/m.exec(r.stdout)?.[1]);
      assert.ok(passed >= 14, `${passed} tests passed`);
      assert.match(r.stdout, new RegExp(`ok \\d+ - ${id}: upstream faults of ${capability} as callers see them`));
    });
  }

  it('left the real plugins/ and plugins.config.ts alone', async () => {
    for (const { id } of [...cases, ...others]) {
      assert.equal(await exists(join(repo, 'plugins', id)), false);
      assert.ok(!(await readFile(join(repo, 'plugins.config.ts'), 'utf8')).includes(`${id}:`));
    }
  });
});
