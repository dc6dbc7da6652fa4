/**
 * What a database thread runs: its module as plain JavaScript, so the thread never needs a
 * TypeScript loader. The built tree has `pglite-thread.js` beside this file. From sources (tests,
 * `npm run dev`) the thread would otherwise register tsx inside the worker, which costs ~0.5 s of
 * CPU per thread (its loader thread and esbuild); instead the source is bundled once per process
 * here and the worker starts from a `data:` URL.
 */
import { fileURLToPath } from 'node:url';

export interface ThreadEntry {
  /** The worker's main module. */
  url: URL;
  /**
   * Node flags for the worker; undefined inherits the parent's. From sources none: the inherited
   * `--import tsx` would load tsx in every thread again, and the thread needs no flag of its own.
   */
  execArgv?: string[];
}

let fromSource: Promise<URL> | undefined;

/** The entry for the thread module next to `storageUrl` (this directory's `import.meta.url`). */
export async function threadEntry(storageUrl: string): Promise<ThreadEntry> {
  if (!storageUrl.endsWith('.ts')) return { url: new URL('./pglite-thread.js', storageUrl) };
  fromSource ??= bundleThread(new URL('./pglite-thread.ts', storageUrl));
  fromSource.catch(() => (fromSource = undefined));
  return { url: await fromSource, execArgv: [] };
}

/**
 * Strips the types (esbuild, as tsx itself does) and points the PGlite import at its resolved
 * file: a `data:` module can import builtins and absolute URLs, not bare package names.
 */
async function bundleThread(source: URL): Promise<URL> {
  const esbuild = await import('esbuild');
  const pglite = import.meta.resolve('@electric-sql/pglite');
  const out = await esbuild.build({
    entryPoints: [fileURLToPath(source)],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    // Stack traces from the thread name the source file instead of a page of base64.
    footer: { js: `//# sourceURL=${source.href}` },
    plugins: [
      {
        name: 'pglite-by-url',
        setup(build) {
          build.onResolve({ filter: /^@electric-sql\/pglite$/ }, () => ({ path: pglite, external: true }));
        },
      },
    ],
  });
  const js = Buffer.from(out.outputFiles[0]!.contents).toString('base64');
  return new URL(`data:text/javascript;base64,${js}`);
}
