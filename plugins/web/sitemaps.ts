/**
 * A site's page URLs from its sitemaps (issue 25): the `Sitemap:` lines of robots.txt and
 * `/sitemap.xml`, following sitemap indexes a bounded number of levels and files. Each file is
 * fetched through the guarded HTTP engine at the origin's Crawl-delay, and inflated and read in
 * a compute worker (sitemap-parse.ts); a file that cannot be read is skipped, never fatal.
 */
import type { WebContext } from './work.js';
import { waitTurn, type OriginRules } from './robots.js';
import type { SiteScope } from './site-scope.js';

/** How deep sitemap indexes are followed (an index of indexes of sitemaps). */
const MAX_NESTING = 3;
/** Largest sitemap file fetched, compressed or not. */
const MAX_FETCH_BYTES = 10 * 1024 * 1024;

/** Options of {@link sitemapPages}. */
export interface SitemapOptions {
  /** The start URL's origin: its robots.txt names sitemaps; `/sitemap.xml` is tried there. */
  rules: OriginRules;
  scope: SiteScope;
  /** Most page URLs wanted. */
  max: number;
  /** Most sitemap files read. */
  maxFiles: number;
  /** Largest sitemap once decompressed (the plugin's page size cap). */
  maxBytes: number;
  timeoutMs: number;
  /** Stop reading more files after this time. */
  deadline?: number;
}

/** The in-scope page URLs the site's sitemaps list, normalised, distinct, in file order. */
export async function sitemapPages(ctx: WebContext, opts: SitemapOptions): Promise<string[]> {
  const { rules } = opts;
  const start = [...rules.sitemaps, `${rules.origin}/sitemap.xml`];
  const seenFiles = new Set<string>();
  const found = new Set<string>();
  let level: string[] = start;
  let files = 0;
  for (let depth = 0; depth <= MAX_NESTING && level.length && found.size < opts.max; depth++) {
    const next: string[] = [];
    for (const url of level) {
      if (found.size >= opts.max || files >= opts.maxFiles || ctx.signal.aborted) break;
      if (opts.deadline !== undefined && Date.now() >= opts.deadline) break;
      if (seenFiles.has(url)) continue;
      seenFiles.add(url);
      files++;
      const bytes = await fetchSitemap(ctx, url, opts);
      if (!bytes) continue;
      const file = await ctx.state.pages.run('sitemapEntries', { bytes, scope: opts.scope, maxBytes: opts.maxBytes, max: opts.max - found.size }, { signal: ctx.signal });
      if (file.error) ctx.log.warn({ url }, `sitemap skipped: ${file.error}`);
      if (file.kind === 'index') next.push(...file.locs);
      else for (const loc of file.locs) if (found.size < opts.max) found.add(loc);
    }
    level = next;
  }
  return [...found];
}

/** One sitemap file's bytes, or undefined when it cannot be read (not there, refused, too large). */
async function fetchSitemap(ctx: WebContext, url: string, opts: SitemapOptions): Promise<Uint8Array | undefined> {
  // Files on the start origin keep its pace; robots.txt rules apply to them like to pages.
  const sameOrigin = new URL(url).origin === opts.rules.origin;
  if (sameOrigin && !opts.rules.allows(url)) return undefined;
  if (sameOrigin && !(await waitTurn(opts.rules, ctx.signal, opts.deadline))) return undefined;
  try {
    const res = await ctx.engines.http.request({ url, signal: ctx.signal, timeoutMs: opts.timeoutMs, maxBytes: Math.min(MAX_FETCH_BYTES, opts.maxBytes) });
    if (res.status < 200 || res.status >= 300) return undefined;
    return res.body;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log.debug({ err, url }, 'sitemap not read');
    return undefined;
  }
}
