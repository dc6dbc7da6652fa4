/**
 * `npm run check:new-provider [-- <capability> …]` (issue 29): writes a provider for every
 * capability of the catalogue (or those named) with the scaffold into a scratch tree, runs each
 * generated test as generated, one after the other, and prints a line per capability; exits 1 when
 * any is refused or fails. It takes a few seconds of CPU per capability (each test runs the provider
 * fault suite), too long for `npm test`, whose scaffold test runs two of them and type-checks all
 * (test/new-provider.test.ts). Run it after changing a capability's schema, checks or examples.
 */
import { join } from 'node:path';
import { catalogue } from '../core/catalogue.js';
import { scaffold } from './new-provider.js';
import { removeTree, runTestFile, scratchTree } from './new-provider-tree.js';

const named = process.argv.slice(2);
const unknown = named.filter((id) => !catalogue.some((c) => c.id === id));
if (unknown.length) {
  console.error(`Unknown capabilities: ${unknown.join(', ')}.`);
  process.exit(1);
}
const capabilities = catalogue.filter((c) => !named.length || named.includes(c.id));
const tree = await scratchTree();
const failed: string[] = [];
try {
  for (const cap of capabilities) {
    const id = `gen_${cap.id}`;
    const started = Date.now();
    let line: string;
    try {
      await scaffold({ id, capability: cap.id, root: tree.root });
      const r = await runTestFile(join(tree.root, 'plugins', id, `${id}.test.ts`));
      const count = (what: string) => Number(new RegExp(`^# ${what} (\\d+)$`, 'm').exec(r.stdout)?.[1] ?? NaN);
      const ok = r.code === 0 && count('fail') === 0;
      line = `${ok ? 'ok  ' : 'FAIL'} ${cap.id}: ${count('pass')} passed, ${count('fail')} failed`;
      if (!ok) {
        failed.push(cap.id);
        line += `\n${r.stdout.split('\n').filter((l) => /not ok|error:|expected:|actual:/.test(l)).slice(0, 20).join('\n')}${r.stderr.trim() ? `\n${r.stderr.trim().slice(-2000)}` : ''}`;
      }
    } catch (err) {
      failed.push(cap.id);
      line = `FAIL ${cap.id}: the scaffold refused it: ${(err as Error).message}`;
    }
    console.log(`${line} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
} finally {
  await removeTree(tree);
}
console.log(failed.length ? `${failed.length} of ${capabilities.length} failed: ${failed.join(', ')}` : `All ${capabilities.length} generated providers pass their tests.`);
process.exit(failed.length ? 1 : 0);
