/**
 * What a database thread runs: its module as plain JavaScript, so the thread never needs a
 * TypeScript loader. The built tree has `pglite-thread.js` beside this file. From sources (tests,
 * `npm run dev`) the thread would otherwise register tsx inside the worker, which costs ~0.5 s of
 * CPU per thread (its loader thread and esbuild); instead the source is bundled once per process
 * here (core/util/worker-bundle.ts, as for the compute and PDF workers) and the worker starts from
 * a `data:` URL.
 */
import { workerModuleUrl } from '../util/worker-bundle.js';

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
  fromSource ??= workerModuleUrl(new URL('./pglite-thread.ts', storageUrl).href).then((u) => new URL(u));
  fromSource.catch(() => (fromSource = undefined));
  return { url: await fromSource, execArgv: [] };
}
