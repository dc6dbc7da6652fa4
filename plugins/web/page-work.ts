/**
 * The CPU-heavy part of the web operations, run in the compute engine's worker threads
 * (`ctx.engines.compute`): parsing a 10 MB page, turning it into markdown or finding its main
 * content takes seconds, which on the main thread would stall every other request. Each function
 * takes and returns plain data; `warning` carries what the caller should log. Those that parse a
 * page load the parser first (html-parser.ts), so a worker that only reads robots.txt or sitemaps
 * never loads it.
 */
import { ParsedPage, toMarkdown, type PageMetadata } from './page-content.js';
import { toText } from './page-text.js';
import { compileScope, normaliseUrl, onSite, pathAllowed, scopeLinks, type SiteScope } from './site-scope.js';
import { sitemapLocs, sitemapText, type SitemapFile } from './sitemap-parse.js';
import { allowedByRobots } from './robots-match.js';
import { loadHtmlParser } from './html-parser.js';

/** Of `urls` (on one origin), those its robots.txt (`text`, read at `robotsUrl`) allows. */
export function robotsAllowed(a: { robotsUrl: string; text: string; urls: string[] }): string[] {
  return allowedByRobots(a.robotsUrl, a.text, a.urls);
}

/** A fetched HTML page, as the workers receive it. */
export interface PageData {
  html: string;
  url: string;
  status: number;
  contentType: string;
  contentLanguage?: string;
}

/**
 * Deeper than this, markdown is not attempted and the text stands in: turndown recurses once per
 * nesting level and its time grows with the square of the depth (4 s of a worker at 5,000 levels,
 * a stack overflow after 15 s at 8,000; a 300 KB page 30,000 deep held a worker past its time
 * limit), while real pages nest a few dozen levels.
 */
const MAX_MARKDOWN_DEPTH = 1000;

/** Markdown, or the text when the page is too deep for turndown or turndown fails on it. */
function markdownOrText(html: string, parsed: ParsedPage): { content: string; warning?: string } {
  if (parsed.nestedDeeperThan(MAX_MARKDOWN_DEPTH)) return { content: toText(html), warning: `page nested deeper than ${MAX_MARKDOWN_DEPTH} elements; returned the text` };
  try {
    return { content: toMarkdown(html) };
  } catch (err) {
    return { content: toText(html), warning: `markdown conversion failed (${(err as Error).message}); returned the text` };
  }
}

/** What `scrapeFormats` returns: title, metadata and each text format asked for. */
export interface ScrapedFormats {
  title: string;
  metadata: PageMetadata;
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  warning?: string;
}

/**
 * `scrape` with several formats (issue 27): `includeTags` keeps only the matching elements and
 * `excludeTags` removes matching ones before any conversion; `rawHtml` is the document as given,
 * before either.
 */
export async function scrapeFormats(
  a: PageData & { formats: ('markdown' | 'html' | 'rawHtml' | 'links')[]; cleaned: boolean; includeTags?: string[]; excludeTags?: string[]; fullDocument?: boolean },
): Promise<ScrapedFormats> {
  await loadHtmlParser();
  const parsed = new ParsedPage(a.html, a.url);
  const metadata = parsed.metadata(a.status, a.contentType, { contentLanguage: a.contentLanguage });
  const out: ScrapedFormats = { title: parsed.title(), metadata };
  if (a.formats.includes('rawHtml')) out.rawHtml = a.html;
  if (a.excludeTags?.length || a.includeTags?.length) parsed.select(a.includeTags ?? [], a.excludeTags ?? []);
  if (a.formats.includes('links')) out.links = [...new Set(parsed.links())];
  if (!a.formats.includes('markdown') && !a.formats.includes('html')) return out;
  // The v1 `format: html` answer is the whole document (head included) unless cleaned.
  const whole = !a.cleaned && a.fullDocument && !a.formats.includes('markdown');
  const html = a.cleaned ? (parsed.mainContent()?.html ?? parsed.bodyHtml()) : whole ? parsed.document.toString() : parsed.bodyHtml();
  if (a.formats.includes('html')) out.html = html;
  if (a.formats.includes('markdown')) {
    const md = markdownOrText(html, parsed);
    out.markdown = md.content;
    if (md.warning) out.warning = md.warning;
  }
  return out;
}

/** Title and metadata only (a screenshot's page). */
export async function pageSummary(a: PageData): Promise<{ title: string; metadata: PageMetadata }> {
  await loadHtmlParser();
  const parsed = new ParsedPage(a.html, a.url);
  return { title: parsed.title(), metadata: parsed.metadata(a.status, a.contentType, { contentLanguage: a.contentLanguage }) };
}

/** `extract`: the main content (or the whole page when it has no article-like block), as markdown and text, with its links. */
export async function extractContent(a: PageData) {
  await loadHtmlParser();
  const parsed = new ParsedPage(a.html, a.url);
  const metadata = parsed.metadata(a.status, a.contentType, { contentLanguage: a.contentLanguage });
  const main = parsed.mainContent() ?? { html: parsed.bodyHtml() };
  const links = [...new Set(new ParsedPage(main.html, a.url).links())];
  const opt = (v: string | undefined) => (v ? v : undefined);
  return {
    title: ('title' in main && main.title) || parsed.title(),
    ...markdownOrText(main.html, parsed),
    text: toText(main.html),
    excerpt: opt('excerpt' in main ? main.excerpt : metadata.description),
    byline: opt('byline' in main ? main.byline : undefined),
    siteName: opt('siteName' in main ? main.siteName : metadata.ogSiteName),
    publishedTime: opt('publishedTime' in main ? main.publishedTime : undefined),
    metadata,
    links,
  };
}

/**
 * One crawled HTML page: its links (when the crawl goes deeper) and its content as markdown or
 * text. When markdown cannot be made the text stands in; when not even that, `content` is
 * undefined and the page is left out (and not charged). With a `scope`, the links are the
 * distinct in-scope URLs and `selfAllowed` says whether the page itself passes the path rules.
 */
export async function crawlPage(a: { html: string; url: string; format: 'markdown' | 'text' | 'links only'; links: boolean; scope?: SiteScope }): Promise<{ links: string[]; content?: string; warning?: string; selfAllowed: boolean }> {
  await loadHtmlParser();
  const selfAllowed = a.scope ? isAllowed(a.url, a.scope) : true;
  const out = pageParts(a);
  return { ...out, links: a.scope ? scopeLinks(out.links, a.scope) : out.links, selfAllowed };
}

function isAllowed(url: string, scope: SiteScope): boolean {
  const norm = normaliseUrl(url, scope.ignoreQuery);
  return !!norm && pathAllowed(norm, compileScope(scope));
}

function pageParts(a: { html: string; url: string; format: 'markdown' | 'text' | 'links only'; links: boolean }): { links: string[]; content?: string; warning?: string } {
  let parsed: ParsedPage | undefined;
  let links: string[] = [];
  let html = a.html;
  let warning: string | undefined;
  try {
    parsed = new ParsedPage(a.html, a.url);
    if (a.links) links = parsed.links();
    if (a.format === 'links only') return { links };
    html = parsed.bodyHtml();
    if (a.format === 'markdown') {
      const md = markdownOrText(html, parsed);
      return { links, content: md.content, warning: md.warning };
    }
  } catch (err) {
    warning = `markdown conversion failed (${(err as Error).message}); returned the text`;
  }
  try {
    return { links, content: toText(html), warning };
  } catch (err) {
    return { links, warning: `page could not be converted (${(err as Error).message}); left out` };
  }
}

/** A map's start page: its title and description, whether it is in scope, and its in-scope links. */
export async function mapPage(a: { html: string; url: string; status: number; contentType: string; scope: SiteScope; max: number }): Promise<{ title: string; description?: string; selfAllowed: boolean; links: string[] }> {
  await loadHtmlParser();
  const parsed = new ParsedPage(a.html, a.url);
  const metadata = parsed.metadata(a.status, a.contentType);
  return { title: parsed.title(), description: metadata.description, selfAllowed: isAllowed(a.url, a.scope), links: scopeLinks(parsed.links(), a.scope, a.max) };
}

/**
 * One sitemap file, inflated within `maxBytes` when gzipped: for an index, the sitemaps it
 * lists (on the site); for a urlset, its in-scope page URLs (at most `max`).
 */
export function sitemapEntries(a: { bytes: Uint8Array; scope: SiteScope; maxBytes: number; max: number }): SitemapFile {
  const { text, error } = sitemapText(a.bytes, a.maxBytes);
  if (text === undefined) return { kind: 'unknown', locs: [], error };
  // The protocol's cap on entries per file; the scope then keeps at most `max` of them.
  const file = sitemapLocs(text, 50_000);
  if (file.kind === 'index') return { kind: 'index', locs: file.locs.filter((l) => onSite(l, { site: a.scope.site, subdomains: true })).slice(0, 1000) };
  return { kind: file.kind, locs: scopeLinks(file.locs, a.scope, a.max) };
}
