/**
 * Client of the spider_a API (Spider, contracts §6): bearer auth, JSON bodies, every route
 * answering a JSON array with one element per page (a target-site failure is reported inside the
 * element, not as the HTTP status). Upstream failures become catalogue errors here.
 */
import { type HttpResponse, providerStatusError, type RunContext, UpstreamError } from '../../core/sdk.js';

/** One page element of a Spider response. */
export interface SpiderPage {
  url: string;
  status: number;
  content: string | Record<string, string> | null;
  error?: string | null;
  links?: string[];
  metadata?: Record<string, unknown>;
  costs?: Record<string, unknown>;
  [k: string]: unknown;
}

const NAME = 'spider_a';

/** POSTs to a Spider route and returns its page array. */
export async function spiderCall(ctx: RunContext<unknown>, route: 'scrape' | 'crawl' | 'links', body: Record<string, unknown>): Promise<SpiderPage[]> {
  const base = String(ctx.config.baseUrl).replace(/\/+$/, '');
  const res = await ctx.engines.http.request({
    url: `${base}/v1/${route}`,
    method: 'POST',
    json: body,
    headers: { authorization: `Bearer ${ctx.config.apiKey}`, accept: 'application/json' },
    guard: false,
    timeoutMs: 150_000,
    maxBytes: 50 * 1024 * 1024,
    signal: ctx.signal,
  });
  if (res.status === 204) return [];
  if (res.status < 200 || res.status >= 300) throw mapError(res);
  let pages: unknown;
  try {
    pages = res.json();
  } catch (err) {
    throw new UpstreamError(`Received invalid data structure from ${NAME} service.`, { cause: err });
  }
  if (!Array.isArray(pages) || pages.some((p) => typeof p !== 'object' || p === null || typeof (p as SpiderPage).url !== 'string')) {
    throw new UpstreamError(`Received invalid data structure from ${NAME} service.`);
  }
  return pages as SpiderPage[];
}

/** The page's content as one string (an object keyed by format when several were asked). */
export function contentOf(page: SpiderPage, format?: string): string {
  if (typeof page.content === 'string') return page.content;
  if (page.content && typeof page.content === 'object') return String((format && page.content[format]) ?? Object.values(page.content)[0] ?? '');
  return '';
}

/** contracts §6 "Errors": `{ error, status }`; 402 is our account, not the caller's input. */
function mapError(res: HttpResponse): Error {
  let message = '';
  try {
    message = String(res.json<{ error?: string }>().error ?? '');
  } catch {
    message = res.text().slice(0, 200);
  }
  return providerStatusError(NAME, res.status, message);
}
