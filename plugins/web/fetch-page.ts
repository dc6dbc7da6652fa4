/**
 * Gets one page for scrape and crawl (spec §4.5): through the warm browser when JavaScript must
 * run (`renderJs`, default true) or a screenshot is wanted, else a plain guarded fetch. HTML and
 * plain text are returned as text; a PDF becomes its text; any other type is a 400.
 */
import { DOCUMENT_MEDIA_TYPES, InputError, OperationFailedError, PayloadTooLargeError, ToolError, runTool, type RunContext, type ToolEngine } from '../../core/sdk.js';
import type { ActionResult, RenderRequest } from '../../core/sdk.js';

/** What a fetched page is, once classified. */
export interface FetchedPage {
  url: string;
  status: number;
  contentType: string;
  /** `document`: a PDF or office file, with `bytes` (only when `documents: 'bytes'` was asked). */
  kind: 'html' | 'pdf' | 'text' | 'document';
  /** HTML source (kind html) or the document's text (pdf, text); empty for kind document. */
  body: string;
  /** kind document: the file as served, and the extension its type or name says. */
  bytes?: Uint8Array;
  extension?: string;
  /** The response's Content-Language header, if any (a fallback for the page's language). */
  contentLanguage?: string;
  /** Title the browser saw (kind html, rendered only). */
  title?: string;
  screenshot?: Uint8Array;
  /** What each page action did (rendered only). */
  actions?: ActionResult[];
}

/** Options of one page fetch. */
export interface FetchOptions {
  url: string;
  renderJs: boolean;
  screenshot?: { fullPage?: boolean };
  viewport?: { width: number; height: number; mobile?: boolean };
  waitMs?: number;
  timeoutMs: number;
  maxBytes: number;
  /** The scrape's browser settings (issue 27), for this call's own context. */
  browser?: Pick<RenderRequest, 'waitForSelector' | 'actions' | 'blockUrls' | 'locale' | 'owner'>;
  /** Request headers and cookies of this call only (both paths). */
  headers?: Record<string, string>;
  cookies?: { name: string; value: string; domain?: string; path?: string }[];
  /** `none`: directly, even when the operator set WEB_PROXY_URL (default: through it). */
  proxy?: 'none' | 'default';
  /** `bytes`: PDFs and office files come back as their bytes (kind document) instead of text or a 400. */
  documents?: 'text' | 'bytes';
}

/** Limits read from the plugin's configuration (`WEB_MAX_PAGE_BYTES`, `WEB_PAGE_TIMEOUT_MS`). */
export function limitsFrom(config: Record<string, string | undefined>): { maxBytes: number; timeoutMs: number } {
  const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : d);
  return { maxBytes: num(config.maxPageBytes, 10 * 1024 * 1024), timeoutMs: num(config.pageTimeoutMs, 20_000) };
}

/** Fetches and classifies `opts.url`. */
export async function fetchPage(ctx: RunContext<unknown>, opts: FetchOptions): Promise<FetchedPage> {
  const { timeoutMs, maxBytes } = opts;
  const proxy = webProxy(ctx, opts.proxy);
  if (opts.renderJs || opts.screenshot) {
    const r = await ctx.engines.browser.render({
      url: opts.url,
      screenshot: opts.screenshot,
      viewport: opts.viewport,
      waitMs: opts.waitMs,
      timeoutMs,
      // Every byte the page pulls in (document, scripts, images, fetches) counts against the cap.
      maxBytes,
      signal: ctx.signal,
      headers: opts.headers,
      cookies: opts.cookies,
      proxy,
      // The pool's queue serves keys in turn (issue 24).
      owner: ctx.caller,
      ...opts.browser,
    });
    // The browser shows XML, JSON or plain text as a page too; those are classified from the
    // bytes below exactly as with renderJs:false, so both modes answer the same (a screenshot is
    // taken of whatever the browser shows).
    // No DOM means the browser did not show the page (a download), and a PDF labelled as HTML is
    // shown as its bytes: both are fetched below, where the bytes say what they are.
    if (r.html && !pdfShownAsText(r.html) && (isHtml(r.contentType) || opts.screenshot || !r.contentType)) {
      if (Buffer.byteLength(r.html) > maxBytes) throw tooLarge(r.url, maxBytes);
      const contentLanguage = r.headers['content-language'];
      return { url: r.url, status: r.status, contentType: r.contentType, kind: 'html', body: r.html, title: r.title, screenshot: r.screenshot, contentLanguage, actions: r.actions };
    }
    // Not a web page (PDF, image…): the browser does not render it, so read the bytes directly.
  }
  const headers: Record<string, string> = opts.browser?.locale?.acceptLanguage ? { 'accept-language': opts.browser.locale.acceptLanguage } : {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = v;
  const cookie = cookieHeader(opts.url, opts.cookies);
  if (cookie) headers.cookie = headers.cookie ? `${headers.cookie}; ${cookie}` : cookie;
  const res = await ctx.engines.http.request({ url: opts.url, signal: ctx.signal, timeoutMs, maxBytes: maxBytes, proxy, ...(Object.keys(headers).length ? { headers } : {}) });
  const contentType = res.headers['content-type'] ?? '';
  const contentLanguage = res.headers['content-language'];
  const head = Buffer.from(res.body.subarray(0, 512)).toString('latin1');
  if (opts.documents === 'bytes') {
    const extension = documentExtension(contentType, res.url, head);
    if (extension) return { url: res.url, status: res.status, contentType: contentType || 'application/octet-stream', kind: 'document', body: '', bytes: res.body, extension };
  }
  if (/application\/pdf/i.test(contentType) || head.startsWith('%PDF-')) {
    return { url: res.url, status: res.status, contentType: contentType || 'application/pdf', kind: 'pdf', body: await pdfText(res.body, ctx.signal, ctx.engines.tools) };
  }
  if (isHtml(contentType) || (!contentType && /<(!doctype html|html|head|body)[\s>]/i.test(head))) {
    return { url: res.url, status: res.status, contentType: contentType || 'text/html', kind: 'html', body: res.text(), contentLanguage };
  }
  if (/^text\/(plain|markdown)/i.test(contentType)) {
    return { url: res.url, status: res.status, contentType, kind: 'text', body: res.text() };
  }
  throw new InputError(
    `Unsupported content type '${contentType.split(';')[0] || 'unknown'}' at ${res.url}: only HTML pages, PDF documents and plain text can be scraped.`,
  );
}

/** The operator's WEB_PROXY_URL unless the call said `proxy: "none"`. */
export function webProxy(ctx: RunContext<unknown>, choice: 'none' | 'default' | undefined): string | undefined {
  const url = (ctx.config as { proxyUrl?: string }).proxyUrl;
  return choice === 'none' || !url ? undefined : url;
}

/** The extension of a PDF or office document by its type, its bytes, or (for generic types) its URL; undefined for anything else. */
function documentExtension(contentType: string, url: string, head: string): string | undefined {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (DOCUMENT_MEDIA_TYPES[type]) return DOCUMENT_MEDIA_TYPES[type];
  if (head.startsWith('%PDF-')) return 'pdf';
  if (type && type !== 'application/octet-stream' && type !== 'binary/octet-stream') return undefined;
  const ext = /\.([a-z0-9]{2,5})$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  return ext && Object.values(DOCUMENT_MEDIA_TYPES).includes(ext) ? ext : undefined;
}

/** A Cookie header with the cookies meant for `url`'s host (a cookie's domain covers its subdomains). */
function cookieHeader(url: string, cookies: FetchOptions['cookies']): string | undefined {
  if (!cookies?.length) return undefined;
  const u = new URL(url);
  const host = u.hostname.toLowerCase();
  const fits = (c: NonNullable<FetchOptions['cookies']>[number]) => {
    const d = c.domain?.replace(/^\./, '').toLowerCase();
    return (!d || host === d || host.endsWith(`.${d}`)) && u.pathname.startsWith(c.path ?? '/');
  };
  const list = cookies.filter(fits).map((c) => `${c.name}=${c.value}`);
  return list.length ? list.join('; ') : undefined;
}

/** A PDF's bytes served under an HTML type: Chromium parses them as a page whose body starts with the PDF header. */
function pdfShownAsText(html: string): boolean {
  return /^(?:<!doctype[^>]*>)?\s*<html[^>]*>\s*<head[^>]*>[\s\S]{0,200}?<\/head>\s*<body[^>]*>\s*%PDF-\d/i.test(html.slice(0, 600));
}

function isHtml(contentType: string): boolean {
  return /text\/html|application\/xhtml\+xml/i.test(contentType);
}

/** The plain fetch's own wording (decimal units), so both paths answer alike. */
function tooLarge(url: string, max: number) {
  const size = max >= 1_000_000 ? `${Math.round(max / 100_000) / 10} MB` : `${Math.round(max / 1000)} KB`;
  return new PayloadTooLargeError(`Failed to retrieve ${url}: the response is larger than the ${size} limit.`);
}

/**
 * Text of a PDF via poppler's pdftotext (a Debian package the service already requires), run
 * confined like every local tool: no network, no host files, none of the service's secrets.
 */
export async function pdfText(pdf: Uint8Array, signal: AbortSignal, tools: ToolEngine): Promise<string> {
  try {
    const { stdout } = await runTool('pdftotext', ['-enc', 'UTF-8', '-layout', '-', '-'], { stdin: pdf, signal, timeoutMs: 30_000, tools });
    return stdout.toString('utf8').replace(/\f/g, '\n\n').replace(/[ \t]+\n/g, '\n').trim();
  } catch (err) {
    if (signal.aborted) throw err;
    // pdftotext refusing the file is the page's problem (400); a killed or failed run is ours.
    if (err instanceof ToolError && err.kind === 'exit') {
      throw new InputError(`The PDF document could not be read: ${err.stderr.trim().split('\n')[0] || err.message}.`, { cause: err });
    }
    throw new OperationFailedError('Failed to read the PDF document.', { cause: err });
  }
}
