/**
 * linkedom, the HTML parser of the web plugin, loaded at first use rather than with the modules
 * that use it: it is some 120 modules and about 0.1 s of CPU (a third of a second under tsx) that
 * every thread importing it pays, while most threads never parse a page (the serving thread of a
 * process that starts a server; a compute worker that only reads robots.txt, sitemaps or diffs).
 *
 * Callers await {@link loadHtmlParser} once before their synchronous work, which then parses with
 * {@link parseHtml}. One promise, so concurrent first calls share the one import.
 */
import type * as Linkedom from 'linkedom';

/** A parsed document (linkedom's). */
export type HtmlDocument = ReturnType<typeof Linkedom.parseHTML>['document'];

let loading: Promise<void> | undefined;
let loaded: typeof Linkedom | undefined;

/** Loads linkedom (once per thread); later calls resolve at once. A failed import is tried again by the next call. */
export function loadHtmlParser(): Promise<void> {
  loading ??= import('linkedom').then(
    (mod) => {
      loaded = mod;
    },
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}

/** `html` parsed as a document; {@link loadHtmlParser} must have been awaited on this thread. */
export function parseHtml(html: string): HtmlDocument {
  if (!loaded) throw new Error('html-parser: parseHtml() called before loadHtmlParser() was awaited');
  return loaded.parseHTML(html).document;
}
