/**
 * Web capabilities (spec §4.5, §4.9, §4.10; issue 4). Owned by the web lane. Implementations
 * come from the service's own `web` plugin and the crawler providers (`crawler_a`, `spider_a`,
 * `shot_a`, `browser_a`), which all map onto the output shapes declared here.
 */
import { Type, UnsupportedOptionError, defineCapability, flat, perUnit, type CostRule, type Static, type Units } from '../sdk.js';
import { DOC_TEXT_MAX_PAGES, DOC_TEXT_OCR_PAGE_CREDITS, EXTRACT_WEB_CREDITS, ExtractWebInput, ExtractWebOutput, checkExtractWeb, extractSchemaOf } from './extract.js';
import { CHANGE_TRACKING_JSON_CREDITS, MAX_ACTIONS, checkScrapeHeaders, scrapeOptions, scrapeOutputFields } from './web-scrape.js';
import { URL_REQUIRED, Url, checkUrl } from './web-url.js';
import { crawlSite } from './web-crawl.js';
import { SCRAPE_CREDITS } from './search-cost.js';

export * from './web-scrape.js';
export * from './web-url.js';
export * from './web-crawl.js';

const Metadata = Type.Object(
  {
    title: Type.Optional(Type.String({ description: 'Document title.' })),
    description: Type.Optional(Type.String({ description: 'Meta description.' })),
    language: Type.Optional(Type.String({ description: 'Declared document language: html lang, meta content-language, or the Content-Language header.' })),
    canonical: Type.Optional(Type.String({ description: 'Canonical URL (link rel=canonical).' })),
    ogTitle: Type.Optional(Type.String({ description: 'og:title.' })),
    ogDescription: Type.Optional(Type.String({ description: 'og:description.' })),
    ogImage: Type.Optional(Type.String({ description: 'og:image, absolute.' })),
    ogUrl: Type.Optional(Type.String({ description: 'og:url.' })),
    ogType: Type.Optional(Type.String({ description: 'og:type.' })),
    ogSiteName: Type.Optional(Type.String({ description: 'og:site_name.' })),
    statusCode: Type.Integer({ description: 'HTTP status of the page.' }),
    contentType: Type.String({ description: 'Content-Type of the page.' }),
    cacheState: Type.Optional(Type.Union([Type.Literal('hit'), Type.Literal('miss')], { description: 'With maxAge: hit when the answer came from the cache, miss when the page was fetched.' })),
    cachedAt: Type.Optional(Type.String({ description: 'On a cache hit: when the cached answer was made (ISO 8601).' })),
    expiresAt: Type.Optional(Type.String({ description: 'When a temporary file link in `content` stops working (format screenshot, or a document with parsePDF false), ISO 8601.' })),
  },
  { additionalProperties: true, description: 'Page metadata (description, language, canonical, status code, content type) and every og:* property of the page, camel-cased (og:site_name → ogSiteName; URL values absolute; ogLocaleAlternate is an array of strings).' },
);

const ScrapeInput = Type.Object({
  url: Url('Page to fetch (http or https).'),
  format: Type.Optional(
    Type.Union([Type.Literal('markdown'), Type.Literal('html'), Type.Literal('screenshot')], {
      description: 'markdown (default), html, or screenshot (a PNG URL).',
    }),
  ),
  cleaned: Type.Optional(Type.Boolean({ description: 'Main content only (article extraction).' })),
  renderJs: Type.Optional(Type.Boolean({ description: 'Render JavaScript (default true); false: a plain, faster fetch.' })),
  ...scrapeOptions,
});

/** `scrape_page` input as the capability declares it. */
export type ScrapePageInput = Static<typeof ScrapeInput>;

/** Cross-field checks of a scrape: the URL, headers, and waits that say what to wait for. */
function checkScrape(i: ScrapePageInput): string | undefined {
  const url = checkUrl(i.url);
  if (url) return url;
  const headers = checkScrapeHeaders(i.headers);
  if (headers) return headers;
  for (const [n, a] of (i.actions ?? []).entries()) {
    if (a.type === 'wait' && (a.milliseconds === undefined) === (a.selector === undefined)) return `Action ${n + 1} (wait) needs either 'milliseconds' or 'selector'.`;
  }
  const tracking = checkChangeTrackingOptions(i);
  if (tracking) return tracking;
  if (i.renderJs === false && (i.actions?.length || i.waitFor || i.waitForSelector || i.mobile || i.blockAds || (i.formats ?? []).some((f) => f.startsWith('screenshot')))) {
    return "'renderJs: false' cannot be combined with actions, waitFor, waitForSelector, mobile, blockAds or a screenshot format: those need the browser.";
  }
  return undefined;
}

/** True when a scrape asks change tracking for its json mode (a model extraction compared field by field). */
export function wantsJsonTracking(i: Pick<ScrapePageInput, 'formats' | 'changeTrackingOptions'>): boolean {
  return !!i.formats?.includes('changeTracking') && !!i.changeTrackingOptions?.modes?.includes('json');
}

/** tag and changeTrackingOptions belong to the changeTracking format; json mode needs a schema or a prompt, the schema in a form the model lane reads. */
function checkChangeTrackingOptions(i: ScrapePageInput): string | undefined {
  // A tag names a snapshot history: without the format there is nothing to keep it under.
  if (i.tag !== undefined && !i.formats?.includes('changeTracking')) return "'tag' needs the changeTracking format in 'formats'.";
  const o = i.changeTrackingOptions;
  if (!o) return undefined;
  if (!i.formats?.includes('changeTracking')) return "'changeTrackingOptions' needs the changeTracking format in 'formats'.";
  const json = o.modes?.includes('json');
  if (!json && (o.schema !== undefined || o.prompt !== undefined)) return "'changeTrackingOptions.schema' and 'prompt' are for json mode: add 'json' to 'changeTrackingOptions.modes'.";
  if (json && o.schema === undefined && !o.prompt) return "changeTracking json mode needs 'changeTrackingOptions.schema' or 'changeTrackingOptions.prompt'.";
  if (o.schema !== undefined && !extractSchemaOf(o.schema)) {
    return "'changeTrackingOptions.schema' must be a JSON Schema of type 'object', or a map of field names to type names (string, number, integer, boolean, array, object).";
  }
  return undefined;
}

/**
 * A scrape's price: 10 credits, plus an `extract_text` call's price when change tracking's json
 * mode had the model extract (unit `json_extractions`; a page whose markdown did not change
 * reuses the last extraction and adds nothing). That much is held up front; a scanned
 * document behind the URL grows the hold by its OCR pages while it is read (the doc_text call
 * inside is priced into this one: core/execution/inner-hold.ts), and a cached answer made from
 * one grows it by the same pages at the same price (unit `ocr_pages` reported by the scrape
 * itself, only on a hit: a cached answer costs what it cost when made).
 */
export function scrapeCost(): CostRule<ScrapePageInput> {
  const most = (i: ScrapePageInput) => SCRAPE_CREDITS + (wantsJsonTracking(i) ? CHANGE_TRACKING_JSON_CREDITS : 0);
  const ocr = (units: Units) => Math.min(Math.max(0, units.ocr_pages ?? 0), DOC_TEXT_MAX_PAGES) * DOC_TEXT_OCR_PAGE_CREDITS;
  return {
    describe: { kind: 'custom', note: `${SCRAPE_CREDITS} credits; +${DOC_TEXT_OCR_PAGE_CREDITS} per page read by OCR when the URL serves a scanned document; +${CHANGE_TRACKING_JSON_CREDITS} when changeTracking json mode extracts` },
    initial: most,
    reserve: (i) => most(i) + DOC_TEXT_MAX_PAGES * DOC_TEXT_OCR_PAGE_CREDITS,
    settle: (i, units: Units) => (units.json_extractions ? most(i) : SCRAPE_CREDITS) + ocr(units),
  };
}

/** Output of `scrape_page` (spec §4.5). */
export const ScrapeOutput = Type.Object({
  title: Type.String({ description: 'Page title.' }),
  url: Type.String({ description: 'Final URL after redirects.' }),
  content: Type.String({ description: 'Markdown, HTML, or the temporary URL of the PNG screenshot.' }),
  metadata: Metadata,
  format: Type.String({ description: 'The format returned.' }),
  cleaned: Type.Boolean({ description: 'Whether only the main content was kept.' }),
  ...scrapeOutputFields,
});

export const scrapePage = defineCapability({
  id: 'scrape_page',
  title: 'Scrape a web page',
  summary: 'Fetch one page (rendering JavaScript by default) and return it as markdown, HTML or a screenshot, with its metadata.',
  tags: ['web', 'scrape', 'markdown', 'html', 'page', 'readability'],
  input: ScrapeInput,
  output: ScrapeOutput,
  cost: scrapeCost(),
  validate: checkScrape,
  messages: {
    url: URL_REQUIRED,
    format: "'format' must be one of: markdown, html, screenshot.",
    cleaned: "'cleaned' must be a boolean.",
    renderJs: "'renderJs' must be a boolean.",
    formats: "'formats' must be a list of distinct formats among: markdown, html, rawHtml, links, screenshot, screenshot@fullPage, changeTracking.",
    onlyMainContent: "'onlyMainContent' must be a boolean.",
    includeTags: "'includeTags' must be a list of at most 50 CSS selectors.",
    excludeTags: "'excludeTags' must be a list of at most 50 CSS selectors.",
    waitFor: "'waitFor' must be an integer number of milliseconds between 0 and 60000.",
    waitForSelector: "'waitForSelector' must be a non-empty CSS selector.",
    timeout: "'timeout' must be an integer number of milliseconds between 1000 and 80000.",
    mobile: "'mobile' must be a boolean.",
    headers: "'headers' must be an object of header names (1 to 100 characters) to string values (at most 8192 characters each).",
    cookies: "'cookies' must be a list of at most 50 objects with string 'name' and 'value' (and optional 'domain', 'path').",
    location: "'location' must be an object with an optional two-letter 'country' and a list of language tags 'languages'.",
    blockAds: "'blockAds' must be a boolean.",
    actions: `'actions' must be a list of at most ${MAX_ACTIONS} actions, each with a 'type' among wait, click, write, press, scroll, screenshot, scrape, executeJavascript and that type's fields.`,
    maxAge: "'maxAge' must be an integer number of milliseconds (0 or more, at most 30 days).",
    storeInCache: "'storeInCache' must be a boolean.",
    parsePDF: "'parsePDF' must be a boolean.",
    proxy: "'proxy' must be one of: none, default.",
    tag: "'tag' must be a string of 1 to 128 characters.",
    changeTrackingOptions: "'changeTrackingOptions' must be an object with optional 'modes' (git-diff, json), 'schema' (an object) and 'prompt' (a string).",
  },
});

/**
 * Cookie-consent banners hidden before a screenshot (issue 14: `blockCookieBanners`, default
 * true). Best effort by design: the overlays of the common consent platforms (OneTrust,
 * Cookiebot, Usercentrics, Didomi, Quantcast, TrustArc, Sourcepoint, Funding Choices, CookieYes,
 * Osano, iubenda, Borlabs, Complianz, consentmanager, cookieconsent) and the ids and classes
 * sites commonly give their own banners. Nothing is clicked: a banner is hidden, not answered,
 * so no consent is given on the user's behalf. Matching elements get `display: none` and the
 * page's scroll lock is lifted (the browser engine's `hideSelectors`). Shared
 * through the catalogue so hosted browsers (browser_a's `addStyleTag`) hide the same ones.
 */
export const COOKIE_BANNER_SELECTORS: readonly string[] = [
  '#onetrust-consent-sdk',
  '#onetrust-banner-sdk',
  '#CybotCookiebotDialog',
  '#CybotCookiebotDialogBodyUnderlay',
  '#usercentrics-root',
  '#usercentrics-cmp-ui',
  '#didomi-host',
  '#didomi-notice',
  '.qc-cmp2-container',
  '#qc-cmp2-container',
  '#truste-consent-track',
  '.truste_box_overlay',
  '.truste_overlay',
  '[id^="sp_message_container"]',
  '.fc-consent-root',
  '.cky-consent-container',
  '.cky-overlay',
  '.osano-cm-window',
  '#iubenda-cs-banner',
  '#BorlabsCookieBox',
  '.cmplz-cookiebanner',
  '#cmpbox',
  '#cmpbox2',
  '.cc-window',
  '.cc-banner',
  '#cookie-law-info-bar',
  '#cookiescript_injected',
  '#cookie-notice',
  '#cookie-banner',
  '#cookieBanner',
  '#cookie-consent',
  '#cookieConsent',
  '#cookie-bar',
  '#gdpr-cookie-message',
  '#gdpr-banner',
  '#consent-banner',
  '.cookie-banner',
  '.cookie-consent',
  '.cookie-notice',
  '.cookie-bar',
  '.cookies-banner',
  '.consent-banner',
  '.gdpr-banner',
  '[aria-label="cookieconsent"]',
  '[data-testid="cookie-banner"]',
  '[data-cookie-banner]',
];

/** CSS that hides every banner of {@link COOKIE_BANNER_SELECTORS} (for hosted browsers' style tags). */
export function cookieBannerCss(): string {
  return `${COOKIE_BANNER_SELECTORS.join(',\n')} { display: none !important; visibility: hidden !important; }`;
}

/** Spec §8.1 / issue 14: a screenshot costs 20 credits, +10 with `autoScroll`, +10 with `wait` > 0. */
export const SCREENSHOT_CREDITS = { base: 20, autoScroll: 10, wait: 10 } as const;
/** Longest `wait` a screenshot accepts, in ms (issue 14). */
export const SCREENSHOT_MAX_WAIT_MS = 5000;

const ScreenshotInput = Type.Object({
  url: Url('Page to capture.'),
  fullPage: Type.Optional(Type.Boolean({ description: 'Capture the whole scrollable page (default false: the viewport).' })),
  wait: Type.Optional(Type.Number({ minimum: 0, maximum: SCREENSHOT_MAX_WAIT_MS, description: 'Extra wait after load, ms (0-5000, spec §4.10; above 0 adds 10 credits).' })),
  viewport: Type.Optional(
    Type.Object(
      {
        width: Type.Integer({ minimum: 100, maximum: 3840, description: 'Viewport width in CSS pixels (100-3840).' }),
        height: Type.Integer({ minimum: 100, maximum: 10240, description: 'Viewport height in CSS pixels (100-10240).' }),
      },
      { description: 'Browser viewport (default 1280×800).' },
    ),
  ),
  clipRectangle: Type.Optional(
    Type.Object(
      {
        x: Type.Integer({ minimum: 0, maximum: 100_000, description: 'Left edge, CSS pixels.' }),
        y: Type.Integer({ minimum: 0, maximum: 100_000, description: 'Top edge, CSS pixels.' }),
        width: Type.Integer({ minimum: 1, maximum: 3840, description: 'Width, CSS pixels.' }),
        height: Type.Integer({ minimum: 1, maximum: 10240, description: 'Height, CSS pixels.' }),
      },
      { description: 'Capture only this rectangle of the page.' },
    ),
  ),
  blockCookieBanners: Type.Optional(Type.Boolean({ description: 'Hide cookie-consent banners (default true; best effort).' })),
  autoScroll: Type.Optional(Type.Boolean({ description: 'Scroll through the page first so lazily loaded content appears (adds 10 credits).' })),
  // Issue 28: the flat spellings clients send.
  width: Type.Optional(Type.Integer({ minimum: 100, maximum: 3840, description: 'Flat `viewport.width` (height default 800).' })),
  height: Type.Optional(Type.Integer({ minimum: 100, maximum: 10240, description: 'Flat `viewport.height` (width default 1280).' })),
  waitFor: Type.Optional(Type.Number({ minimum: 0, maximum: SCREENSHOT_MAX_WAIT_MS, description: 'The same as `wait`; `wait` wins when both are given.' })),
  format: Type.Optional(Type.Union([Type.Literal('png'), Type.Literal('jpeg'), Type.Literal('webp')], { description: 'Image format: png (default), jpeg or webp.' })),
  quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'jpeg or webp quality, 1-100 (default 80); not for png.' })),
  deviceScaleFactor: Type.Optional(Type.Number({ minimum: 1, maximum: 3, description: 'Device pixels per CSS pixel, 1-3 (default 1).' })),
});

/** A screenshot request with the flat spellings folded in: one viewport, one wait, the image type. */
export function screenshotSettings(i: Partial<ScreenshotRequest>): {
  viewport?: { width: number; height: number };
  wait?: number;
  format: 'png' | 'jpeg' | 'webp';
  quality?: number;
  deviceScaleFactor?: number;
} {
  const viewport = i.viewport ?? (i.width !== undefined || i.height !== undefined ? { width: i.width ?? 1280, height: i.height ?? 800 } : undefined);
  const format = i.format ?? 'png';
  return { viewport, wait: i.wait ?? i.waitFor, format, quality: format === 'png' ? undefined : (i.quality ?? 80), deviceScaleFactor: i.deviceScaleFactor };
}

/** Output of `screenshot`. */
export const ScreenshotOutput = Type.Object({
  screenshotUrl: Type.String({ description: 'Temporary URL of the image (24 h); the field v1 clients read.' }),
  url: Type.String({ description: 'Temporary URL of the image (same as `screenshotUrl`).' }),
  contentType: Type.String({ description: 'Image type: image/png, image/jpeg or image/webp.' }),
  expiresAt: Type.Optional(Type.String({ description: 'When the URL stops working (ISO 8601).' })),
  width: Type.Optional(Type.Integer({ description: 'Image width in pixels.' })),
  height: Type.Optional(Type.Integer({ description: 'Image height in pixels.' })),
  pageUrl: Type.Optional(Type.String({ description: 'Final URL of the captured page.' })),
  pageHeight: Type.Optional(Type.Integer({ description: 'With fullPage: height of the whole page in CSS pixels (more than `height` when clipped).' })),
  clipped: Type.Optional(
    Type.Boolean({ description: "With fullPage: true when the page was taller (or wider) than the provider's capture limit and the image shows only its top (own Chromium: WEB_SCREENSHOT_MAX_HEIGHT, default 16384 px, at widths up to 1280 px; wider captures get the same area)." }),
  ),
});

/**
 * The flat fields for a hosted screenshot provider that takes a viewport and a wait but only
 * PNGs at scale 1: the viewport and wait to send; another format or scale is refused rather
 * than ignored (issue 28: a silently ignored option is a broken workflow).
 */
export function pngScreenshotSettings(i: Partial<ScreenshotRequest>, provider: string): { viewport?: { width: number; height: number }; wait?: number } {
  const set = screenshotSettings(i);
  if (set.format !== 'png') throw new UnsupportedOptionError(`'format' ${set.format} is not supported by provider ${provider}; use provider web.`);
  if ((set.deviceScaleFactor ?? 1) !== 1) throw new UnsupportedOptionError(`'deviceScaleFactor' is not supported by provider ${provider}; use provider web.`);
  return { viewport: set.viewport, wait: wholeMs(set.wait) };
}

/** A screenshot `wait` (a number per spec §4.10) as whole milliseconds, for APIs that take integers. */
export function wholeMs(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.round(ms);
}

/** Screenshot input as the capability declares it (issue 14's v1 request body). */
export type ScreenshotRequest = Static<typeof ScreenshotInput>;

/** Credits one screenshot request costs (issue 14): 20, +10 with autoScroll, +10 with wait > 0. */
export function screenshotCredits(i: Partial<ScreenshotRequest>): number {
  return SCREENSHOT_CREDITS.base + (i.autoScroll ? SCREENSHOT_CREDITS.autoScroll : 0) + ((i.wait ?? i.waitFor ?? 0) > 0 ? SCREENSHOT_CREDITS.wait : 0);
}

/**
 * The screenshot price as a cost rule: fixed per request once the input is known, so the
 * reservation is the charge (a failure is never charged: the executor releases it).
 */
export const screenshotCost: CostRule<Partial<ScreenshotRequest>> = {
  describe: { kind: 'custom', note: '20 credits; +10 with autoScroll; +10 when wait > 0' },
  reserve: (input) => screenshotCredits(input),
  settle: (input, _units: Units) => screenshotCredits(input),
};

export const screenshot = defineCapability({
  id: 'screenshot',
  title: 'Screenshot a web page',
  summary: "Render a page in a browser and return a temporary URL to the image (`screenshotUrl`): full page, viewport, clip rectangle, cookie banners hidden, auto-scroll; the service's own Chromium by default, or crawler_a, shot_a, browser_a via `provider`.",
  tags: ['web', 'screenshot', 'image', 'browser', 'render', 'png', 'capture'],
  input: ScreenshotInput,
  output: ScreenshotOutput,
  cost: screenshotCost,
  validate: (i: Static<typeof ScreenshotInput>) => checkUrl(i.url) ?? (i.quality !== undefined && (i.format ?? 'png') === 'png' ? "'quality' applies to jpeg and webp only: set 'format' to jpeg or webp." : undefined),
  messages: {
    url: URL_REQUIRED,
    width: "'width' must be an integer between 100 and 3840.",
    height: "'height' must be an integer between 100 and 10240.",
    waitFor: "'waitFor' must be a number of milliseconds between 0 and 5000.",
    format: "'format' must be one of: png, jpeg, webp.",
    quality: "'quality' must be an integer between 1 and 100.",
    deviceScaleFactor: "'deviceScaleFactor' must be a number between 1 and 3.",
    fullPage: "'fullPage' must be a boolean.",
    wait: "'wait' must be a number of milliseconds between 0 and 5000.",
    viewport: "'viewport' must be an object with integer 'width' (100-3840) and 'height' (100-10240).",
    clipRectangle: "'clipRectangle' must be an object with integer 'x' and 'y' (0 or more), 'width' (1-3840) and 'height' (1-10240).",
    blockCookieBanners: "'blockCookieBanners' must be a boolean.",
    autoScroll: "'autoScroll' must be a boolean.",
  },
});

/** Input of the web plugin's `web.extract` endpoint (main-content extraction, no model). */
export const WebExtractInput = Type.Object({
  url: Url('Page to extract from.'),
  renderJs: Type.Optional(Type.Boolean({ description: 'Render JavaScript in a browser first (default true).' })),
});

/** Output of the web plugin's `web.extract` endpoint (Readability-class main content). */
export const ExtractOutput = Type.Object({
  url: Type.String({ description: 'Final URL after redirects.' }),
  title: Type.String({ description: 'Article or page title.' }),
  content: Type.String({ description: 'Main content as markdown.' }),
  text: Type.String({ description: 'Main content as plain text.' }),
  excerpt: Type.Optional(Type.String({ description: 'Short summary or lead paragraph.' })),
  byline: Type.Optional(Type.String({ description: 'Author line.' })),
  siteName: Type.Optional(Type.String({ description: 'Site name.' })),
  publishedTime: Type.Optional(Type.String({ description: 'Publication time when the page declares one.' })),
  metadata: Metadata,
  links: Type.Array(Type.String(), { description: 'Absolute links found in the main content.' }),
});

/** Validation and 400 texts of the `web.extract` endpoint. */
export const webExtractRules = {
  validate: (i: Static<typeof WebExtractInput>) => checkUrl(i.url),
  messages: { url: URL_REQUIRED, renderJs: "'renderJs' must be a boolean." },
};

/**
 * `extract_web` (issue 15; spec §4.9, §4.10): the original service's shape — a page and a JSON
 * Schema or prompt in, `results` and `screenshotUrl` out, 250 credits. Served by the
 * service-managed extraction lane (plugin `extract`), which reports the service's own name.
 */
export const extractWeb = defineCapability({
  id: 'extract_web',
  title: 'Extract structured data from a web page',
  summary: 'Render a web page, screenshot it, and fill a JSON Schema (or answer a prompt) about it with a model; returns `results` and `screenshotUrl`.',
  tags: ['extract', 'web', 'llm', 'schema', 'structured', 'page'],
  aliases: ['extract'],
  input: ExtractWebInput,
  output: ExtractWebOutput,
  cost: flat(EXTRACT_WEB_CREDITS),
  validate: checkExtractWeb,
  messages: { url: URL_REQUIRED, schema: "'schema' must be a JSON Schema object.", prompt: "'prompt' must be a non-empty string." },
});

export default [scrapePage, crawlSite, screenshot, extractWeb];
