/**
 * Gets one page for scrape and crawl (spec §4.5): through the warm browser when JavaScript must
 * run (`renderJs`, default true) or a screenshot is wanted, else a plain guarded fetch. HTML and
 * plain text are returned as text; a PDF becomes its text; any other type is a 400.
 */
import { InputError, OperationFailedError, PayloadTooLargeError, ToolError, runTool, type RunContext, type ToolEngine } from '../../core/sdk.js';

/** What a fetched page is, once classified. */
export interface FetchedPage {
  url: string;
  status: number;
  contentType: string;
  kind: 'html' | 'pdf' | 'text';
  /** HTML source (kind html) or the document's text (pdf, text). */
  body: string;
  /** The response's Content-Language header, if any (a fallback for the page's language). */
  contentLanguage?: string;
  /** Title the browser saw (kind html, rendered only). */
  title?: string;
  screenshot?: Uint8Array;
}

/** Options of one page fetch. */
export interface FetchOptions {
  url: string;
  renderJs: boolean;
  screenshot?: { fullPage?: boolean };
  viewport?: { width: number; height: number };
  waitMs?: number;
  timeoutMs: number;
  maxBytes: number;
}

/** Limits read from the plugin's configuration (`WEB_MAX_PAGE_BYTES`, `WEB_PAGE_TIMEOUT_MS`). */
export function limitsFrom(config: Record<string, string | undefined>): { maxBytes: number; timeoutMs: number } {
  const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : d);
  return { maxBytes: num(config.maxPageBytes, 10 * 1024 * 1024), timeoutMs: num(config.pageTimeoutMs, 20_000) };
}

/** Fetches and classifies `opts.url`. */
export async function fetchPage(ctx: RunContext<unknown>, opts: FetchOptions): Promise<FetchedPage> {
  const { timeoutMs, maxBytes } = opts;
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
    });
    // The browser shows XML, JSON or plain text as a page too; those are classified from the
    // bytes below exactly as with renderJs:false, so both modes answer the same (a screenshot is
    // taken of whatever the browser shows).
    if (isHtml(r.contentType) || (r.html && (opts.screenshot || !r.contentType))) {
      if (Buffer.byteLength(r.html) > maxBytes) throw tooLarge(r.url, maxBytes);
      const contentLanguage = r.headers['content-language'];
      return { url: r.url, status: r.status, contentType: r.contentType, kind: 'html', body: r.html, title: r.title, screenshot: r.screenshot, contentLanguage };
    }
    // Not a web page (PDF, image…): the browser does not render it, so read the bytes directly.
  }
  const res = await ctx.engines.http.request({ url: opts.url, signal: ctx.signal, timeoutMs, maxBytes: maxBytes });
  const contentType = res.headers['content-type'] ?? '';
  const contentLanguage = res.headers['content-language'];
  const head = Buffer.from(res.body.subarray(0, 512)).toString('latin1');
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
async function pdfText(pdf: Uint8Array, signal: AbortSignal, tools: ToolEngine): Promise<string> {
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
