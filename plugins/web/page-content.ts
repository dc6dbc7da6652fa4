/**
 * Turns a page's HTML into what scrape and crawl return (spec §4.5): GFM markdown with absolute
 * links, plain text or HTML; the main content only when `cleaned` (Readability, not tag
 * stripping); and the page metadata (description, language, canonical, og:*).
 */
import TurndownService from 'turndown';
import { highlightedCodeBlock, strikethrough, taskListItems } from 'turndown-plugin-gfm';
import { Readability } from '@mozilla/readability';
import { gfmTables } from './markdown-table.js';
import { withTrailingContentInBody } from './trailing-content.js';
import { parseHtml, type HtmlDocument } from './html-parser.js';

/** Page metadata as returned in `metadata` (spec §4.5). */
export interface PageMetadata {
  title?: string;
  description?: string;
  language?: string;
  canonical?: string;
  keywords?: string;
  author?: string;
  ogTitle?: string;
  ogDescription?: string;
  ogImage?: string;
  ogUrl?: string;
  ogType?: string;
  ogSiteName?: string;
  /** Every `og:locale:alternate`; the other og properties are strings under camel-cased names. */
  ogLocaleAlternate?: string[];
  statusCode: number;
  contentType: string;
  [k: string]: unknown;
}

/** og properties whose values are URLs. */
// A page can carry any number of metas; the response keeps a bounded, useful number.
const MAX_OG = 64;
const OG_URL = /^og:(?:(?:image|video|audio)(?::url|:secure_url)?|url)$/;

type Doc = HtmlDocument;

/**
 * A parsed page with links made absolute against its final URL (or its `<base href>`). The parser
 * loads at first use: `loadHtmlParser()` (html-parser.ts) is awaited before the first page.
 */
export class ParsedPage {
  readonly document: Doc;
  readonly baseUrl: string;
  /** Nesting depth of the deepest element, once measured. */
  private depth?: number;

  constructor(html: string, pageUrl: string) {
    // linkedom only builds <html>/<body> for full documents; browsers accept fragments, so wrap them.
    this.document = parseHtml(/<html[\s>]/i.test(html) ? withTrailingContentInBody(html) : `<!doctype html><html><head></head><body>${html}</body></html>`);
    const base = this.document.querySelector('base[href]')?.getAttribute('href');
    this.baseUrl = absolute(base ?? '', pageUrl) ?? pageUrl;
    for (const [sel, attr] of [['a[href]', 'href'], ['img[src]', 'src'], ['link[href]', 'href'], ['source[src]', 'src'], ['iframe[src]', 'src']] as const) {
      for (const el of this.document.querySelectorAll(sel)) {
        const abs = absolute(el.getAttribute(attr) ?? '', this.baseUrl);
        if (abs) el.setAttribute(attr, abs);
      }
    }
  }

  /** `<title>`, falling back to og:title and the first heading. */
  title(): string {
    const t = this.document.querySelector('title')?.textContent?.trim();
    return t || this.meta('property', 'og:title') || this.document.querySelector('h1')?.textContent?.trim() || '';
  }

  private meta(attr: 'name' | 'property', key: string): string | undefined {
    for (const el of this.document.querySelectorAll(`meta[${attr}]`)) {
      if (el.getAttribute(attr)?.toLowerCase() === key) {
        const v = el.getAttribute('content')?.trim();
        if (v) return v;
      }
    }
    return undefined;
  }

  /**
   * The metadata block of the scrape response. Every `og:*` property is kept under its camel-cased
   * name (`og:image:width` → `ogImageWidth`; the first value wins, except `og:locale:alternate`,
   * which lists them all); the canonical link is found by its rel token, whatever else rel says;
   * the language falls back to the response's Content-Language header.
   */
  metadata(statusCode: number, contentType: string, opts: { contentLanguage?: string } = {}): PageMetadata {
    const og = this.openGraph();
    const headerLanguage = opts.contentLanguage?.split(',')[0]?.trim();
    const entries: PageMetadata = {
      title: this.title() || undefined,
      description: this.meta('name', 'description') ?? (og.ogDescription as string | undefined),
      language:
        this.document.documentElement?.getAttribute('lang')?.trim() || this.meta('http-equiv' as 'name', 'content-language') || headerLanguage || undefined,
      canonical: this.canonical(),
      keywords: this.meta('name', 'keywords'),
      author: this.meta('name', 'author'),
      ...og,
      statusCode,
      contentType,
    };
    return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as PageMetadata;
  }

  /** `<link rel="… canonical …" href>`: rel is a set of case-insensitive tokens. */
  private canonical(): string | undefined {
    for (const el of this.document.querySelectorAll('link[rel][href]')) {
      const rel = (el.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
      const href = el.getAttribute('href')?.trim();
      if (rel.includes('canonical') && href) return href;
    }
    return undefined;
  }

  /** Every `og:*` meta (by `property`, or `name` as some sites write it), camel-cased. */
  private openGraph(): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const el of this.document.querySelectorAll('meta[property], meta[name]')) {
      const prop = (el.getAttribute('property') || el.getAttribute('name') || '').trim().toLowerCase();
      const value = el.getAttribute('content')?.trim();
      if (!/^og:[a-z0-9_:.-]+$/.test(prop) || !value) continue;
      const key = prop.split(/[:_.-]+/).filter(Boolean).map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
      // Values that are URLs (og:image, og:image:url, og:video:secure_url…) are made absolute.
      const v = OG_URL.test(prop) ? (absolute(value, this.baseUrl) ?? value) : value;
      if (!(key in out) && Object.keys(out).length >= MAX_OG) continue;
      if (prop === 'og:locale:alternate') {
        const list = (out[key] as string[] | undefined) ?? [];
        if (!list.includes(v)) list.push(v);
        out[key] = list;
      } else out[key] ??= v;
    }
    return out;
  }

  /** Every http(s) link on the page, absolute, without fragments. */
  links(): string[] {
    const out: string[] = [];
    for (const a of this.document.querySelectorAll('a[href]')) {
      const href = a.getAttribute('href') ?? '';
      if (!/^https?:/i.test(href)) continue;
      const rel = (a.getAttribute('rel') ?? '').toLowerCase();
      if (rel.split(/\s+/).includes('nofollow')) continue;
      out.push(href.replace(/#.*$/, ''));
    }
    return out;
  }

  /**
   * Keeps only the elements matching `include` (all of them, in document order, as the body) and
   * removes those matching `exclude`. A selector the parser cannot read is a 400 upstream of here
   * in the browser; here it is skipped.
   */
  select(include: string[], exclude: string[]): void {
    const all = (sel: string): Element[] => {
      try {
        return [...this.document.querySelectorAll(sel)] as unknown as Element[];
      } catch {
        return [];
      }
    };
    for (const sel of exclude) for (const el of all(sel)) el.remove();
    if (!include.length || !this.document.body) return;
    const kept = new Set<Element>();
    for (const sel of include) for (const el of all(sel)) kept.add(el);
    // An element inside another kept one comes with it.
    const roots = [...kept].filter((el) => ![...kept].some((other) => other !== el && other.contains(el)));
    const order = (x: Element, y: Element) => (x.compareDocumentPosition(y) & 4 ? -1 : 1);
    const html = roots.sort(order).map((el) => el.outerHTML).join('\n');
    this.document.body.innerHTML = html;
  }

  /** The full document's body HTML without scripts, styles and other non-content elements. */
  bodyHtml(): string {
    for (const el of this.document.querySelectorAll('script, style, noscript, template, link, meta')) el.remove();
    return this.document.body?.innerHTML ?? this.document.toString();
  }

  /**
   * Whether any element lies more than `max` levels deep (checked before converters that recurse
   * per level). The depth is measured once per page: removing elements never makes it deeper.
   */
  nestedDeeperThan(max: number): boolean {
    this.depth ??= maxDepth(this.document.documentElement);
    return this.depth > max;
  }

  /**
   * The main content (Readability), or undefined when the page has no article-like block.
   * Readability mutates the DOM, so it runs on a copy.
   */
  mainContent(): { html: string; title?: string; excerpt?: string; byline?: string; siteName?: string; publishedTime?: string } | undefined {
    // Readability's scoring walks ancestors per node: on a page nested thousands deep it runs for
    // minutes on the thread that serves every request before giving up. No article is that deep.
    if (this.nestedDeeperThan(MAX_ARTICLE_DEPTH)) return undefined;
    const copy = parseHtml(this.document.toString());
    let article: ReturnType<Readability['parse']>;
    try {
      article = new Readability(copy as unknown as Document, { charThreshold: 200 }).parse();
    } catch {
      // Readability recurses per nesting level: a page nested thousands deep has no article it can find.
      return undefined;
    }
    if (!article?.content) return undefined;
    return {
      html: article.content,
      title: article.title ?? undefined,
      excerpt: article.excerpt ?? undefined,
      byline: article.byline ?? undefined,
      siteName: article.siteName ?? undefined,
      publishedTime: article.publishedTime ?? undefined,
    };
  }
}

/** Deeper than this, a page is not searched for an article (see `mainContent`). */
const MAX_ARTICLE_DEPTH = 400;

/** How many levels the deepest element lies below `root` (an iterative walk: no recursion to overflow). */
function maxDepth(root: Element | null): number {
  if (!root) return 0;
  let deepest = 0;
  const stack: [Element, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [el, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    for (let child = el.firstElementChild; child; child = child.nextElementSibling) stack.push([child, depth + 1]);
  }
  return deepest;
}

function absolute(href: string, base: string): string | undefined {
  const h = href.trim();
  if (!h || /^(javascript|mailto|tel|data):/i.test(h) || h.startsWith('#')) return undefined;
  try {
    return new URL(h, base).href;
  } catch {
    return undefined;
  }
}

let turndown: TurndownService | undefined;

/** The shared markdown converter: ATX headings, fenced code with its language, GFM tables. */
function converter(): TurndownService {
  if (turndown) return turndown;
  const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  // The GFM plugin's own table rules keep most tables as HTML and throw on tables without rows.
  td.use([highlightedCodeBlock, strikethrough, taskListItems, gfmTables]);
  // A <title> only reaches the body of a fragment without <head> (the page is wrapped as is).
  // `form` itself stays: ASP.NET WebForms pages wrap the whole body in one, so removing it emptied
  // their markdown; the form controls (inputs, buttons, selects, textareas) are removed instead.
  td.remove(['script', 'style', 'noscript', 'template', 'title', 'iframe', 'button', 'select', 'input', 'textarea', 'svg' as keyof HTMLElementTagNameMap]);
  td.addRule('fencedCodeWithLanguage', {
    filter: (node) => node.nodeName === 'PRE' && node.firstChild?.nodeName === 'CODE',
    replacement: (_content, node) => {
      const code = node.firstChild as HTMLElement;
      const lang = /(?:language|lang)-([\w+#-]+)/.exec(code.getAttribute('class') ?? '')?.[1] ?? '';
      const text = code.textContent ?? '';
      const fence = text.includes('```') ? '~~~' : '```';
      return `\n\n${fence}${lang}\n${text.replace(/\n$/, '')}\n${fence}\n\n`;
    },
  });
  turndown = td;
  return td;
}

/** HTML fragment → GFM markdown. */
export function toMarkdown(html: string): string {
  return converter()
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
