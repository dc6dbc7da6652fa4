/**
 * A scrape request made concrete (issue 27): the formats wanted, how the page is fetched (the
 * browser settings of the call's own context, or the plain fetch's headers), the timeout, and the
 * cache key that tells which stored answers may stand in for this one.
 */
import { createHash } from 'node:crypto';
import { type PageAction, type Static } from '../../core/sdk.js';
import { userUrl, type ScrapeFormat, type scrapePage } from '../../core/catalogue.js';
import { AD_URL_PATTERNS } from './ad-hosts.js';
import { localeFor } from './locales.js';

/** The `scrape_page` input. */
export type ScrapeInput = Static<typeof scrapePage.input>;

/** Everything the scrape does, decided up front. */
export interface ScrapePlan {
  url: string;
  /** Formats asked for; `legacy` when only `format` was given (the answer then keeps its old shape). */
  formats: ScrapeFormat[];
  legacy: boolean;
  cleaned: boolean;
  renderJs: boolean;
  timeoutMs: number;
  actions: PageAction[];
  locale?: { acceptLanguage?: string; locale?: string; timezone?: string };
  blockUrls?: string[];
  /** The cache key, or undefined when this answer may be neither read from nor written to the cache. */
  cacheKey?: string;
  /** Read the cache (maxAge > 0). */
  readCache: boolean;
  writeCache: boolean;
}

/** Sum of the waits a request asks for, in ms (the default timeout makes room for them). */
function waits(i: ScrapeInput): number {
  return (i.waitFor ?? 0) + (i.actions ?? []).reduce((n, a) => n + (a.type === 'wait' ? (a.milliseconds ?? 0) : 0), 0);
}

/** Works out the plan; `pageTimeoutMs` is WEB_PAGE_TIMEOUT_MS, `caller` the key id. */
export function planScrape(i: ScrapeInput, pageTimeoutMs: number, caller: string | undefined): ScrapePlan {
  // An empty list (an automation tool's empty multi-select) is no list.
  const legacy = !i.formats?.length;
  const formats: ScrapeFormat[] = i.formats?.length ? [...i.formats] : [i.format ?? 'markdown'];
  const needsBrowser = formats.some((f) => f.startsWith('screenshot')) || !!i.actions?.length || !!i.waitFor || !!i.waitForSelector || !!i.mobile || !!i.blockAds;
  const renderJs = needsBrowser || (i.renderJs ?? true);
  const timeoutMs = Math.min(i.timeout ?? pageTimeoutMs + waits(i), 80_000);
  const plan: ScrapePlan = {
    url: userUrl(i.url),
    formats,
    legacy,
    cleaned: i.onlyMainContent ?? i.cleaned ?? false,
    renderJs,
    timeoutMs,
    actions: (i.actions ?? []) as PageAction[],
    locale: i.location ? localeFor(i.location) : undefined,
    blockUrls: i.blockAds ? [...AD_URL_PATTERNS] : undefined,
    readCache: (i.maxAge ?? 0) > 0,
    // Only calls that use the cache fill it by default: every other scrape would pay a store write for nothing.
    writeCache: i.storeInCache ?? (i.maxAge ?? 0) > 0,
  };
  // A change-tracking answer is this key's comparison at this moment: never stored or reused.
  if (formats.includes('changeTracking')) return { ...plan, readCache: false, writeCache: false };
  if (plan.readCache || plan.writeCache) plan.cacheKey = cacheKey(i, plan, caller);
  return plan;
}

/**
 * The hash of everything that shapes the answer. Headers, cookies and actions are in it, so an
 * answer is only ever reused for the same ones; with headers or cookies it is also tied to the
 * key that sent them (what they unlock is that caller's). Only the hash is stored, never them.
 */
function cacheKey(i: ScrapeInput, plan: ScrapePlan, caller: string | undefined): string {
  const personal = !!(i.headers && Object.keys(i.headers).length) || !!i.cookies?.length;
  const headers = Object.entries(i.headers ?? {})
    .map(([k, v]) => [k.toLowerCase(), v])
    .sort(([a], [b]) => (a! < b! ? -1 : 1));
  const shape = {
    v: 1,
    url: plan.url,
    formats: [...plan.formats].sort(),
    // `content` holds the first format (and with both screenshots, `screenshot` the other).
    first: plan.formats[0],
    legacy: plan.legacy,
    format: i.format,
    cleaned: plan.cleaned,
    renderJs: plan.renderJs,
    includeTags: i.includeTags,
    excludeTags: i.excludeTags,
    waitFor: i.waitFor,
    waitForSelector: i.waitForSelector,
    mobile: i.mobile,
    location: i.location,
    blockAds: i.blockAds,
    actions: i.actions,
    parsePDF: i.parsePDF,
    proxy: i.proxy,
    headers,
    cookies: i.cookies,
    owner: personal ? (caller ?? '') : undefined,
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex');
}
