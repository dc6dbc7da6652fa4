/**
 * Test files as plain JavaScript, so their processes need no TypeScript loader (scripts/run-tests.mjs).
 * Under `--import tsx` every resolve and load of the ~270 project files a server test imports is a
 * round trip to tsx's loader thread; a bundle loads them as one module. One esbuild build for all
 * the files, bundled as core/util/worker-bundle.ts bundles a worker's module (relative imports
 * inlined, packages imported by absolute URL, `import.meta` of each file its own), into `outdir`
 * with the source tree's layout (`test/x.test.ts` runs as `<outdir>/test/x.test.mjs`).
 *
 * A file whose own side (test/, scripts/, a *.test.ts) imports a module named at run time, by a
 * variable or a template string (`import(path)`), needs a loader for what it names: it runs from a
 * small module that registers tsx and imports the source, as before.
 *
 * Plain JavaScript: it runs in the runner, which starts without tsx (its flags reach every test
 * process); worker-bundle.ts is imported through tsx's scoped `tsImport`, in this process only.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';

/** `import(` whose argument is not one string literal (a comment's `import()` aside). */
const RUN_TIME_IMPORT = /\bimport\(\s*(?![\s'")]|`[^`$]*`)/;

/** Modules on the tests' side, whose run-time imports may name TypeScript (product code's do not: the built tree runs it without a loader). */
const testSide = (path) => /^(test|scripts)\//.test(path) || /\.test\.ts$/.test(path);

/**
 * Bundles `files` (paths of *.test.ts, relative to the repository root or absolute) into `outdir`.
 * Returns each file's run path (absolute) to its source path (absolute), and the files that run
 * under tsx instead, with why.
 */
export async function bundleTestFiles(files, outdir) {
  const { SOURCE_BUNDLE_OPTIONS } = await tsImport('../core/util/worker-bundle.ts', import.meta.url);
  const esbuild = await import('esbuild');
  rmSync(outdir, { recursive: true, force: true });
  const root = process.cwd();
  const sources = files.map((f) => resolve(f));
  const result = await esbuild.build({
    ...SOURCE_BUNDLE_OPTIONS,
    entryPoints: sources,
    outdir,
    outbase: root,
    outExtension: { '.js': '.mjs' },
    metafile: true,
    write: true,
  });
  // A template string that matched no file is left to run time too.
  const needsLoader = new Map();
  for (const w of result.warnings) if (w.location && testSide(w.location.file)) needsLoader.set(w.location.file, w.text);
  const runPaths = new Map();
  const underTsx = new Map();
  const tsxUrl = import.meta.resolve('tsx');
  for (const [out, meta] of Object.entries(result.metafile.outputs)) {
    if (!meta.entryPoint) continue;
    const source = resolve(root, meta.entryPoint);
    const runPath = resolve(root, out);
    runPaths.set(runPath, source);
    const why = Object.keys(meta.inputs).filter(testSide).map((input) => {
      if (needsLoader.has(input)) return `${input}: ${needsLoader.get(input)}`;
      const line = readFileSync(resolve(root, input), 'utf8').split('\n').findIndex((l) => RUN_TIME_IMPORT.test(l));
      return line >= 0 ? `${input}:${line + 1} imports a module named at run time` : undefined;
    }).find(Boolean);
    if (!why) continue;
    underTsx.set(relative(root, source), why);
    // As `--import tsx` would: the loader first, then the file through it.
    writeFileSync(runPath, `import ${JSON.stringify(tsxUrl)};\nawait import(${JSON.stringify(pathToFileURL(source).href)});\n`);
  }
  for (const source of sources) if (![...runPaths.values()].includes(source)) throw new Error(`no bundle for ${source}`);
  return { runPaths, underTsx };
}
