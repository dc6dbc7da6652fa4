/**
 * Issue 29: no import circle anywhere in the tree. Type-only imports count as edges (see
 * test/helpers/import-graph.ts for why); dynamic `import()` counts too.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { importCircles, importGraph, importSpecifiers } from './helpers/import-graph.js';

const root = join(import.meta.dirname, '..');

it('no file under core/, server/, plugins/ (nor console/, test/, bench/, scripts/) imports itself through others', () => {
  const graph = importGraph(root, ['core', 'server', 'plugins', 'console', 'test', 'bench', 'scripts']);
  assert.ok(graph.size > 300, `read only ${graph.size} files`);
  assert.deepEqual(importCircles(graph), [], 'break each circle by moving the shared shapes into a file of their own');
});

it('the reader counts type-only, inline-type, re-export and dynamic imports, and skips commented ones', () => {
  const text = [
    "import type { A } from './a.js';",
    "import { type B, c } from './b.js';",
    "export type { D } from './d.js';",
    "const e = await import('./e.js');",
    "import 'node:fs';",
    '// import { f } from "./f.js";',
    '/** see `import { g } from "./g.js"` */',
  ].join('\n');
  assert.deepEqual(importSpecifiers(text), ['./a.js', './b.js', './d.js', './e.js']);
});

it('finds a circle of two files, a longer one, and a file that imports itself; a chain is no circle', () => {
  const graph = new Map([
    ['hold.ts', ['request.ts', 'executor.ts']],
    ['executor.ts', ['hold.ts']],
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts', 'request.ts']],
    ['self.ts', ['self.ts']],
    ['request.ts', []],
    ['lane.ts', ['executor.ts', 'request.ts']],
  ]);
  assert.deepEqual(importCircles(graph).sort(), ['a.ts → b.ts → c.ts → a.ts', 'executor.ts → hold.ts → executor.ts', 'self.ts → self.ts']);
  assert.deepEqual(importCircles(new Map([['x.ts', ['y.ts']], ['y.ts', ['z.ts']], ['z.ts', []]])), []);
});
