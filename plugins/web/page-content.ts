/**
 * Turns a page's HTML into what scrape and crawl return (spec §4.5): GFM markdown with absolute
 * links, plain text or HTML; the main content only when `cleaned` (Readability, not tag
 * stripping); and the page metadata (description, language, canonical, og:*).
 */
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
import { parseHTML } from 'linkedom';
import { Readability } from '@mozilla/readability';

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
  statusCode: number;
  contentType: string;
  [k: string]: unknown;
}

type Doc = ReturnType<typeof parseHTML>['document'];

/** A parsed page with links made absolute against its final URL (or its `<base href>`). */
export class ParsedPage {
  readonly document: Doc;
  readonly baseUrl: string;

  constructor(html: string, pageUrl: string) {
    // linkedom only builds <html>/<body> for full documents; browsers accept fragments, so wrap them.
    this.document = parseHTML(/<html[\s>]/i.test(html) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`).document;
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

  /** The metadata block of the scrape response. */
  metadata(statusCode: number, contentType: string): PageMetadata {
    const og = (k: string) => this.meta('property', `og:${k}`) ?? this.meta('name', `og:${k}`);
    const canonical = this.document.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? undefined;
    const entries: PageMetadata = {
      title: this.title() || undefined,
      description: this.meta('name', 'description') ?? og('description'),
      language: this.document.documentElement?.getAttribute('lang')?.trim() || this.meta('http-equiv' as 'name', 'content-language') || undefined,
      canonical,
      keywords: this.meta('name', 'keywords'),
      author: this.meta('name', 'author'),
      ogTitle: og('title'),
      ogDescription: og('description'),
      ogImage: og('image') ? absolute(og('image')!, this.baseUrl) : undefined,
      ogUrl: og('url'),
      ogType: og('type'),
      ogSiteName: og('site_name'),
      statusCode,
      contentType,
    };
    return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as PageMetadata;
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

  /** The full document's body HTML without scripts, styles and other non-content elements. */
  bodyHtml(): string {
    for (const el of this.document.querySelectorAll('script, style, noscript, template, link, meta')) el.remove();
    return this.document.body?.innerHTML ?? this.document.toString();
  }

  /**
   * The main content (Readability), or undefined when the page has no article-like block.
   * Readability mutates the DOM, so it runs on a copy.
   */
  mainContent(): { html: string; title?: string; excerpt?: string; byline?: string; siteName?: string; publishedTime?: string } | undefined {
    const copy = parseHTML(this.document.toString()).document;
    const article = new Readability(copy as unknown as Document, { charThreshold: 200 }).parse();
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
  td.use(gfm);
  td.remove(['script', 'style', 'noscript', 'template', 'iframe', 'form', 'button', 'select', 'input', 'svg' as keyof HTMLElementTagNameMap]);
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

/** HTML fragment → readable plain text (block elements become line breaks). */
export function toText(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  for (const el of document.querySelectorAll('script, style, noscript, template')) el.remove();
  for (const el of document.querySelectorAll('br')) el.replaceWith('\n');
  for (const el of document.querySelectorAll('p, div, li, tr, h1, h2, h3, h4, h5, h6, section, article, header, footer, pre, blockquote')) {
    el.append('\n');
  }
  return (document.body?.textContent ?? '')
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
