/**
 * Client of the spider_a API (Spider, contracts §6): bearer auth, JSON bodies, every route
 * answering a JSON array with one element per page (a target-site failure is reported inside the
 * element, not as the HTTP status). Upstream failures become catalogue errors here.
 */
import { invalidStructure, providerRequest, type RunContext } from '../../core/sdk.js';

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

/** POSTs to a Spider route and returns its page array (contracts §6 "Errors": `{ error, status }`). */
export async function spiderCall(ctx: RunContext<unknown>, route: 'scrape' | 'crawl' | 'links', body: Record<string, unknown>): Promise<SpiderPage[]> {
  const { status, data: pages } = await providerRequest<unknown>(ctx, { path: `/v1/${route}`, json: body, timeoutMs: 150_000, maxBytes: 50 * 1024 * 1024 });
  if (status === 204) return [];
  if (!Array.isArray(pages) || pages.some((p) => typeof p !== 'object' || p === null || typeof (p as SpiderPage).url !== 'string')) {
    throw invalidStructure(ctx, 'not an array of pages');
  }
  return pages as SpiderPage[];
}

/** The page's content as one string (an object keyed by format when several were asked). */
export function contentOf(page: SpiderPage, format?: string): string {
  if (typeof page.content === 'string') return page.content;
  if (page.content && typeof page.content === 'object') return String((format && page.content[format]) ?? Object.values(page.content)[0] ?? '');
  return '';
}
