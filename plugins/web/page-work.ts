/**
 * The CPU-heavy part of the web operations, run in the compute engine's worker threads
 * (`ctx.engines.compute`): parsing a 10 MB page, turning it into markdown or finding its main
 * content takes seconds, which on the main thread would stall every other request. Each function
 * takes and returns plain data; `warning` carries what the caller should log.
 */
import { ParsedPage, toMarkdown, toText, type PageMetadata } from './page-content.js';

/** A fetched HTML page, as the workers receive it. */
export interface PageData {
  html: string;
  url: string;
  status: number;
  contentType: string;
  contentLanguage?: string;
}

/** Markdown, or the text when turndown cannot convert the HTML (it recurses once per nesting level). */
function markdownOrText(html: string): { content: string; warning?: string } {
  try {
    return { content: toMarkdown(html) };
  } catch (err) {
    return { content: toText(html), warning: `markdown conversion failed (${(err as Error).message}); returned the text` };
  }
}

/** `scrape` of an HTML page: title, metadata and the content in the asked format. */
export function scrapeContent(a: PageData & { format: 'markdown' | 'html'; cleaned: boolean }): { title: string; metadata: PageMetadata; content: string; warning?: string } {
  const parsed = new ParsedPage(a.html, a.url);
  const metadata = parsed.metadata(a.status, a.contentType, { contentLanguage: a.contentLanguage });
  const title = parsed.title();
  let html: string;
  if (a.cleaned) html = parsed.mainContent()?.html ?? parsed.bodyHtml();
  else html = a.format === 'html' ? parsed.document.toString() : parsed.bodyHtml();
  if (a.format === 'html') return { title, metadata, content: html };
  return { title, metadata, ...markdownOrText(html) };
}

/** Title and metadata only (a screenshot's page). */
export function pageSummary(a: PageData): { title: string; metadata: PageMetadata } {
  const parsed = new ParsedPage(a.html, a.url);
  return { title: parsed.title(), metadata: parsed.metadata(a.status, a.contentType, { contentLanguage: a.contentLanguage }) };
}

/** `extract`: the main content (or the whole page when it has no article-like block), as markdown and text, with its links. */
export function extractContent(a: PageData) {
  const parsed = new ParsedPage(a.html, a.url);
  const metadata = parsed.metadata(a.status, a.contentType, { contentLanguage: a.contentLanguage });
  const main = parsed.mainContent() ?? { html: parsed.bodyHtml() };
  const links = [...new Set(new ParsedPage(main.html, a.url).links())];
  const opt = (v: string | undefined) => (v ? v : undefined);
  return {
    title: ('title' in main && main.title) || parsed.title(),
    ...markdownOrText(main.html),
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
 * undefined and the page is left out (and not charged).
 */
export function crawlPage(a: { html: string; url: string; format: 'markdown' | 'text' | 'links only'; links: boolean }): { links: string[]; content?: string; warning?: string } {
  let parsed: ParsedPage | undefined;
  let links: string[] = [];
  let html = a.html;
  let warning: string | undefined;
  try {
    parsed = new ParsedPage(a.html, a.url);
    if (a.links) links = parsed.links();
    if (a.format === 'links only') return { links };
    html = parsed.bodyHtml();
    if (a.format === 'markdown') return { links, content: toMarkdown(html) };
  } catch (err) {
    warning = `markdown conversion failed (${(err as Error).message}); returned the text`;
  }
  try {
    return { links, content: toText(html), warning };
  } catch (err) {
    return { links, warning: `page could not be converted (${(err as Error).message}); left out` };
  }
}
