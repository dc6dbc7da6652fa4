/** Browser engine contract (owned by the web lane; issue 4 "Browser pool"). Types only. */

/** One page load in the warm browser. */
export interface RenderRequest {
  url: string;
  /**
   * `true` (default) for user-supplied URLs: the page URL is checked before any work and every
   * request the page makes is intercepted and checked (scripts, images, fetch/XHR, redirects).
   * Whatever this says, Chromium's only network exit is the guard proxy (unless the operator set
   * `ALLOW_PRIVATE_NETWORK=true` and no jail could be made, browser-jail.ts), so WebSockets and
   * workers are covered too.
   */
  guard?: boolean;
  /** Upper bound for the whole job in ms (default 20 000). */
  timeoutMs?: number;
  /** Extra wait after the page settled, in ms (screenshot `wait`). */
  waitMs?: number;
  /**
   * Viewport in CSS pixels (default 1280×800); `deviceScaleFactor` (1-3) multiplies the image's
   * pixels, `mobile` emulates a phone's touch viewport.
   */
  viewport?: { width: number; height: number; deviceScaleFactor?: number; mobile?: boolean };
  /**
   * An HTTP proxy for this job's page (`http://[user:pass@]host:port`, the operator's
   * WEB_PROXY_URL): its own context goes through it, behind the SSRF guard as every job does.
   */
  proxy?: string;
  /** User agent for this job (its own context; the default is Chromium's). */
  userAgent?: string;
  /**
   * Extra request headers for this job only (its own context): sent with every request the page
   * makes. Callers must have refused Host and hop-by-hop headers.
   */
  headers?: Record<string, string>;
  /** Cookies set in this job's context before it navigates (domain defaults to the page's host). */
  cookies?: { name: string; value: string; domain?: string; path?: string }[];
  /** Locale emulation: Accept-Language and navigator.languages, the Intl locale, the timezone. */
  locale?: { acceptLanguage?: string; locale?: string; timezone?: string };
  /** URL patterns (`*` wildcards, CDP syntax) the page may not load: ads and trackers. */
  blockUrls?: string[];
  /** Wait until an element matching this CSS selector exists (within the timeout). */
  waitForSelector?: string;
  /** Page actions run in order after load and waits (see `PageAction`). */
  actions?: PageAction[];
  /**
   * Whom the job is for (an opaque API key id): the pool's queue serves owners in turn, so one
   * owner's backlog does not hold up another's first job. Jobs without one share an owner.
   */
  owner?: string;
  /**
   * Most bytes the job may download (the document and everything it loads, workers included);
   * past it the job stops with 413 PayloadTooLarge, as a plain fetch over its cap does. No cap
   * when unset.
   */
  maxBytes?: number;
  /**
   * Capture a PNG after rendering. A full-page capture is limited to `maxHeight` CSS pixels
   * (default 16,384) up to 1,280 wide, to the same area when wider, and to 3,840 wide: Chromium
   * paints the whole area at once, and a 60,000 px tall page at 3,840 wide took ~3.5 GB of its
   * memory. The image then shows the page's top.
   */
  screenshot?: {
    fullPage?: boolean;
    /** Image type (default png); `quality` (1-100) for jpeg and webp. */
    type?: 'png' | 'jpeg' | 'webp';
    quality?: number;
    maxHeight?: number;
    /** Area to capture, in page CSS pixels; cut to the page and to the same area limits as `fullPage`. */
    clip?: { x: number; y: number; width: number; height: number };
    /** CSS selectors hidden (`display: none !important`) just before the capture (cookie banners). */
    hideSelectors?: string[];
  };
  /**
   * Scroll to the bottom in viewport steps before reading the page, so lazy content loads, for at
   * most `maxMs`; the page is scrolled back to the top afterwards.
   */
  autoScroll?: { maxMs: number };
  signal?: AbortSignal;
}

/** What a rendered page looked like. */
export interface RenderResult {
  /** HTTP status of the main document (0 when the browser got none). */
  status: number;
  /** Final URL after redirects. */
  url: string;
  /** Response headers of the main document, lower-case names. */
  headers: Record<string, string>;
  contentType: string;
  /** Serialised DOM after scripts ran; empty for non-HTML documents. */
  html: string;
  title: string;
  /** Image bytes (PNG unless another type was asked for) when a screenshot was asked for. */
  screenshot?: Uint8Array;
  /** What each action did, in order (with `actions`). */
  actions?: ActionResult[];
  /** A full-page capture's page size (CSS pixels) and whether the image was cut to the limits. */
  fullPage?: { pageWidth: number; pageHeight: number; clipped: boolean };
  /** With `screenshot.clip`: the area captured (the requested one cut to the page and limits). */
  clip?: { x: number; y: number; width: number; height: number };
  /** Sub-requests the SSRF guard refused (URL and reason), for logs and tests. */
  blocked: { url: string; reason: string }[];
}

/** Pool counters (for health output and tests). */
export interface BrowserStats {
  launches: number;
  jobs: number;
  /** Browsers retired after BROWSER_RECYCLE_AFTER jobs. */
  recycles: number;
  /** Browsers that disconnected on their own. */
  crashes: number;
  active: number;
  queued: number;
}

/** Warm headless Chromium: one browser, a fresh context per job, a page cap with a queue. */
export interface BrowserEngine {
  /** Loads a page, waits until it settles and returns its DOM (and optionally a PNG). */
  render(req: RenderRequest): Promise<RenderResult>;
  stats(): BrowserStats;
}

/** One page action (the scrape's `actions`). */
export type PageAction =
  | { type: 'wait'; milliseconds?: number; selector?: string }
  | { type: 'click'; selector: string }
  | { type: 'write'; text: string; selector?: string }
  | { type: 'press'; key: string }
  | { type: 'scroll'; direction?: 'up' | 'down'; amount?: number; selector?: string }
  | { type: 'screenshot'; fullPage?: boolean }
  | { type: 'scrape' }
  | { type: 'executeJavascript'; script: string };

/** What one action did. */
export interface ActionResult {
  type: PageAction['type'];
  /** Time it took, in ms. */
  ms: number;
  /** scrape: the URL and HTML at that point. */
  url?: string;
  html?: string;
  /** screenshot: PNG bytes. */
  screenshot?: Uint8Array;
  /** executeJavascript: the script's JSON-serialisable return value. */
  returnValue?: unknown;
}
