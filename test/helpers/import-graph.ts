/**
 * The repository's relative import graph, read from the sources (no dependency: the same kind of
 * pattern test/plugin-imports.test.ts uses), and the circles in it. Type-only imports count: a
 * circle of types still means two files that cannot be understood, moved or split one without the
 * other, which is what issue 29 asks to remove (hold.ts ↔ executor.ts was a type-only circle).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';

/** File (path from the root) → files it imports, in source order. */
export type ImportGraph = Map<string, string[]>;

const importRe = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** Drops comments so an import named in a doc comment is not taken for one. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** The relative import specifiers of a source text, type-only ones included. */
export function importSpecifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of withoutComments(text).matchAll(importRe)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (spec.startsWith('.')) out.push(spec);
  }
  return out;
}

/** The `.ts`/`.js`/`.mjs` files under `dir` (a path from `root`), as paths from `root`. */
export async function sourceFiles(root: string, dir: string): Promise<string[]> {
  return (await readdir(join(root, dir), { recursive: true })).filter((f) => /\.(ts|js|mjs)$/.test(f)).map((f) => join(dir, f));
}

/** Every relative import of `file`, as the path it names from `root` (`core/sdk.js` stays `.js`). */
export async function relativeImports(root: string, file: string): Promise<string[]> {
  return importSpecifiers(await readFile(join(root, file), 'utf8')).map((spec) => relative(root, resolve(root, dirname(file), spec)));
}

/** The file an import of `spec` from `from` names (`./x.js` is `x.ts` or `x.tsx`; a folder is its index). */
function resolveImport(root: string, from: string, spec: string): string {
  const base = relative(root, resolve(root, dirname(from), spec));
  const stem = base.replace(/\.(js|mjs|ts|tsx)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, join(stem, 'index.ts'), base]) if (existsSync(join(root, candidate))) return candidate;
  return base;
}

/** Reads every `.ts`/`.tsx` file under `dirs` (paths from `root`) and its relative imports. */
export function importGraph(root: string, dirs: string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const dir of dirs) {
    if (!existsSync(join(root, dir))) continue;
    for (const f of readdirSync(join(root, dir), { recursive: true }) as string[]) {
      if (!/\.tsx?$/.test(f) || f.split('/').includes('node_modules')) continue;
      const file = join(dir, f);
      const targets = importSpecifiers(readFileSync(join(root, file), 'utf8')).map((s) => resolveImport(root, file, s));
      graph.set(file, [...new Set(targets)]);
    }
  }
  return graph;
}

/**
 * Every circle of the graph, one per strongly connected component (Tarjan), each written as the
 * path that closes it: `a.ts → b.ts → a.ts`.
 */
export function importCircles(graph: ImportGraph): string[] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) components.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return components.map((c) => closingPath(graph, new Set(c), c.sort()[0]!).join(' → '));
}

/** A path from `start` back to itself inside `members` (breadth-first, so the shortest). */
function closingPath(graph: ImportGraph, members: Set<string>, start: string): string[] {
  const came = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at = v; at !== start; at = came.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!came.has(w)) {
        came.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/** Every file `from` reaches through its imports (itself excluded unless a circle leads back). */
export function reachable(graph: ImportGraph, from: string): Set<string> {
  const seen = new Set<string>();
  const queue = [...(graph.get(from) ?? [])];
  while (queue.length > 0) {
    const v = queue.shift()!;
    if (seen.has(v)) continue;
    seen.add(v);
    queue.push(...(graph.get(v) ?? []));
  }
  return seen;
}
