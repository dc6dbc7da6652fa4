/**
 * Worker threads without a TypeScript loader. The built tree runs plain JavaScript and needs
 * none. From sources (tests, `npm run dev`) a worker would otherwise register tsx itself: tsx's
 * loader thread and esbuild, ~0.5 s of CPU per worker, and every module it imports goes through
 * the loader. Instead a module's source is bundled once per process here (esbuild, which tsx
 * itself uses to strip types) into a `data:` URL the worker imports directly, as the embedded
 * database's thread does too (core/storage/pglite-thread-entry.ts).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isBuiltin } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Whether this process runs from sources (this file is TypeScript) rather than the built tree. */
export const FROM_SOURCES = import.meta.url.endsWith('.ts');

const bundles = new Map<string, Promise<string>>();

/**
 * The TypeScript file behind a module URL of the source tree (`./work.js` names `./work.ts`, as
 * tsx resolves it), or undefined: the built tree, or no such source file.
 */
function sourceFile(url: string): string | undefined {
  if (!FROM_SOURCES || !url.startsWith('file:')) return undefined;
  const path = fileURLToPath(url);
  if (path.endsWith('.ts')) return existsSync(path) ? path : undefined;
  const ts = path.replace(/\.js$/, '.ts');
  return ts !== path && existsSync(ts) ? ts : undefined;
}

/**
 * The URL a worker imports for the module at `url`: from sources, a `data:` URL of the module
 * bundled with its relative imports (packages stay shared imports by absolute URL); otherwise
 * `url` itself, which the worker loads (or fails to load) as it is.
 */
export function workerModuleUrl(url: string): Promise<string> {
  const file = sourceFile(url);
  if (!file) return Promise.resolve(url);
  let out = bundles.get(file);
  if (!out) {
    out = bundle(file);
    bundles.set(file, out);
    out.catch(() => bundles.delete(file));
  }
  return out;
}

/** Whether `url` is bundled for workers (so a caller knows a `workerModuleUrl` call is not free). */
export function bundlesForWorkers(url: string): boolean {
  return sourceFile(url) !== undefined;
}

/** What the worker runs first from sources: it waits for its entry's URL, then imports it. */
const AWAIT_ENTRY = `require('node:worker_threads').parentPort.once('message', (url) => import(url))`;

/**
 * Starts a worker on the module at `entry`. From sources the worker starts at once (no flags of
 * the parent: the inherited `--import tsx` would load tsx in it again) and gets its bundled entry
 * as its first message; the entry's own messages follow, as it registers its handlers on import.
 */
export function startWorker(entry: URL, options: WorkerOptions): Worker {
  if (!bundlesForWorkers(entry.href)) return new Worker(entry, options);
  const worker = new Worker(AWAIT_ENTRY, { ...options, eval: true, execArgv: [] });
  workerModuleUrl(entry.href).then(
    (url) => worker.postMessage(url),
    (err: unknown) => {
      worker.emit('error', err);
      void worker.terminate();
    },
  );
  return worker;
}

/**
 * Strips the types and bundles the relative imports. A bare import stays an import, of the
 * package's resolved file URL (a `data:` module cannot resolve bare names; the package is loaded
 * once, not copied). `import.meta` in each file stays that file's own (see ownImportMeta), so
 * paths made from it (`createRequire`, `new URL('./x', import.meta.url)`) point where they did.
 */
async function bundle(file: string): Promise<string> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [file],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    // Stack traces from the worker name the source file instead of a page of base64.
    footer: { js: `//# sourceURL=${pathToFileURL(file).href}` },
    plugins: [
      {
        name: 'packages-by-url',
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, (args) => {
            if (isBuiltin(args.path) || args.path.startsWith('#')) return undefined;
            return { path: import.meta.resolve(args.path), external: true };
          });
          build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
            const text = await readFile(args.path, 'utf8');
            const loader = /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js';
            return { contents: ownImportMeta(text, args.path), loader };
          });
        },
      },
    ],
  });
  const js = Buffer.from(out.outputFiles[0]!.contents).toString('base64');
  return `data:text/javascript;base64,${js}`;
}

/**
 * `import.meta` of the file at `path` as it would be unbundled: its URL, path and folder, and
 * `import.meta.resolve('literal')` resolved now (a `data:` module resolves no bare name).
 */
function ownImportMeta(text: string, path: string): string {
  const url = pathToFileURL(path).href;
  return text
    .replace(/import\.meta\.resolve\(\s*(['"])([^'"]+)\1\s*\)/g, (_, _q, spec: string) => JSON.stringify(spec.startsWith('.') ? new URL(spec, url).href : import.meta.resolve(spec)))
    .replaceAll('import.meta.url', JSON.stringify(url))
    .replaceAll('import.meta.filename', JSON.stringify(path))
    .replaceAll('import.meta.dirname', JSON.stringify(dirname(path)));
}
