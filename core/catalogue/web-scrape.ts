/**
 * The options of `scrape_page` beyond `url, format, cleaned, renderJs` (issue 27): several formats
 * in one call, selectors, waits, device and locale emulation, per-request headers and cookies,
 * page actions, the shared cache (`maxAge`), documents behind a URL and change tracking. Kept
 * apart from web.ts so each file has one job; web.ts assembles the capability.
 */
import { Type, type Static } from '@sinclair/typebox';
import { EXTRACT_TEXT_CREDITS } from './extract.js';

/** Most actions one scrape runs (issue 27). */
export const MAX_ACTIONS = 50;
/** Longest single wait (an action's or `waitFor`), in ms; the call's timeout bounds the sum. */
export const MAX_WAIT_MS = 60_000;
/** Longest `timeout` a scrape accepts, in ms (the endpoint's own limit leaves room for the rest). */
export const MAX_SCRAPE_TIMEOUT_MS = 80_000;

/** What change tracking's json mode adds to a scrape when the model extracts: the price of an `extract_text` call. */
export const CHANGE_TRACKING_JSON_CREDITS = EXTRACT_TEXT_CREDITS;

/** Every format `formats` accepts. */
export const SCRAPE_FORMATS = ['markdown', 'html', 'rawHtml', 'links', 'screenshot', 'screenshot@fullPage', 'changeTracking'] as const;
/** One of {@link SCRAPE_FORMATS}. */
export type ScrapeFormat = (typeof SCRAPE_FORMATS)[number];

const Selector = (description: string) => Type.String({ minLength: 1, maxLength: 1000, description });

/** One page action (issue 27 `actions`), run in order after the page loaded. */
export const ScrapeAction = Type.Union(
  [
    Type.Object(
      {
        type: Type.Literal('wait', { description: 'Wait a number of milliseconds, or until an element appears.' }),
        milliseconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_MS, description: 'ms (0-60000).' })),
        selector: Type.Optional(Selector('Or a CSS selector to wait for.')),
      },
      { additionalProperties: false, description: 'wait.' },
    ),
    Type.Object(
      {
        type: Type.Literal('click', { description: 'Click an element.' }),
        selector: Selector('CSS selector (first match).'),
      },
      { additionalProperties: false, description: 'click.' },
    ),
    Type.Object(
      {
        type: Type.Literal('write', { description: 'Type text.' }),
        text: Type.String({ maxLength: 10_000, description: 'Into `selector`, else the focused element.' }),
        selector: Type.Optional(Selector('CSS selector of the field.')),
      },
      { additionalProperties: false, description: 'write.' },
    ),
    Type.Object(
      {
        type: Type.Literal('press', { description: 'Press a key.' }),
        key: Type.String({ minLength: 1, maxLength: 40, description: 'Key name: Enter, Tab, ArrowDown, a…' }),
      },
      { additionalProperties: false, description: 'press.' },
    ),
    Type.Object(
      {
        type: Type.Literal('scroll', { description: 'Scroll the page (or an element).' }),
        direction: Type.Optional(Type.Union([Type.Literal('up'), Type.Literal('down')], { description: 'Default down.' })),
        amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'CSS pixels (default a viewport).' })),
        selector: Type.Optional(Selector('Element (default the page).')),
      },
      { additionalProperties: false, description: 'scroll.' },
    ),
    Type.Object(
      {
        type: Type.Literal('screenshot', { description: 'Capture the page as it is now.' }),
        fullPage: Type.Optional(Type.Boolean({ description: 'Whole page (default viewport).' })),
      },
      { additionalProperties: false, description: 'screenshot (URL in the outcome).' },
    ),
    Type.Object(
      { type: Type.Literal('scrape', { description: 'Capture the page content at this point.' }) },
      { additionalProperties: false, description: 'scrape (URL, HTML in the outcome).' },
    ),
    Type.Object(
      {
        type: Type.Literal('executeJavascript', { description: 'Run a script in the page.' }),
        script: Type.String({ minLength: 1, maxLength: 100_000, description: 'Function body run in the page; its `return` (JSON) is in the outcome.' }),
      },
      { additionalProperties: false, description: 'executeJavascript.' },
    ),
  ],
  { description: 'One page action.' },
);
/** One page action. */
export type ScrapeActionInput = Static<typeof ScrapeAction>;

/** What one action did, in the order given. */
export const ActionOutcome = Type.Object(
  {
    type: Type.String({ description: 'The action type.' }),
    ms: Type.Integer({ description: 'Time the action took, in ms.' }),
    url: Type.Optional(Type.String({ description: 'scrape: the page URL at that point.' })),
    html: Type.Optional(Type.String({ description: 'scrape: the page HTML at that point.' })),
    screenshot: Type.Optional(Type.String({ description: 'screenshot: temporary URL of the PNG (24 h).' })),
    returnValue: Type.Optional(Type.Unknown({ description: 'executeJavascript: the value the script returned (JSON), if any.' })),
  },
  { description: 'The outcome of one action.' },
);

/** The change-tracking answer (issue 27 `changeTracking` format). */
export const ChangeTracking = Type.Object(
  {
    previousScrapeAt: Type.Union([Type.String(), Type.Null()], { description: 'When the snapshot compared against was taken (ISO 8601), or null for the first scrape.' }),
    changeStatus: Type.Union([Type.Literal('new'), Type.Literal('same'), Type.Literal('changed'), Type.Literal('removed')], {
      description: 'new: no earlier snapshot for this key, URL and tag, or the page is back after a removal (previousScrapeAt: the last check that found it gone); same or changed: the markdown against the last snapshot (same also for a page still gone); removed: the page now answers 404 or 410. A page answering a server error or 429 is a 502 and keeps the snapshot.',
    }),
    visibility: Type.Union([Type.Literal('visible'), Type.Literal('hidden')], { description: 'visible: the page was reached directly by its URL (always so for a scrape).' }),
    diff: Type.Optional(Type.String({ description: 'changed: a git-style unified diff of the markdown, previous → current (git-diff mode, the default). When the versions differ too much to align line by line within a fixed amount of work, the changed region is one removed and one added block and the diff ends with a line starting `\\ Too many changes`.' })),
    json: Type.Optional(
      Type.Record(Type.String(), Type.Object({ previous: Type.Unknown({ description: 'The value before (null when there was none).' }), current: Type.Unknown({ description: 'The value now (null when it is gone).' }) }), {
        description:
          "json mode: each top-level field of the extraction whose value differs from the last snapshot's extraction with the same schema and prompt, as { previous, current }; {} when none differs; every field, with previous null, when there is no such extraction yet. Absent when the page is removed.",
      }),
    ),
  },
  { description: 'With the changeTracking format: how the page compares with the last snapshot this key took of it (same URL and tag).' },
);

/** The options added by issue 27, as properties of the `scrape_page` input. */
export const scrapeOptions = {
  formats: Type.Optional(
    Type.Array(
      Type.Union(SCRAPE_FORMATS.map((f) => Type.Literal(f)), { description: 'A format.' }),
      {
        // No minItems: automation tools send an empty multi-select as [] (issue 27 audit).
        maxItems: SCRAPE_FORMATS.length,
        uniqueItems: true,
        description:
          'Formats in one call, each in its own field (screenshots: PNG URLs); `content` holds the first. An empty list is the same as none.',
      },
    ),
  ),
  onlyMainContent: Type.Optional(Type.Boolean({ description: 'The same as `cleaned`: main content only.' })),
  includeTags: Type.Optional(Type.Array(Selector('A CSS selector.'), { maxItems: 50, description: 'Keep only elements matching these.' })),
  excludeTags: Type.Optional(Type.Array(Selector('A CSS selector.'), { maxItems: 50, description: 'Remove elements matching these.' })),
  waitFor: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_MS, description: 'Extra wait after load, ms; needs the browser (not with renderJs false); a wait the timeout cannot fit is a 502.' })),
  waitForSelector: Type.Optional(Selector('Wait for this CSS selector; renders the page.')),
  timeout: Type.Optional(Type.Integer({ minimum: 1000, maximum: MAX_SCRAPE_TIMEOUT_MS, description: 'ms for the page, waits and actions.' })),
  mobile: Type.Optional(Type.Boolean({ description: 'Emulate a phone.' })),
  headers: Type.Optional(
    Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String({ maxLength: 8192 }), {
      description: 'Headers for this call (no Host or hop-by-hop).',
    }),
  ),
  cookies: Type.Optional(
    Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 256, description: 'Name.' }),
          value: Type.String({ maxLength: 4096, description: 'Value.' }),
          domain: Type.Optional(Type.String({ maxLength: 255, description: "Default the page's host." })),
          path: Type.Optional(Type.String({ maxLength: 1024, description: 'Default /.' })),
        },
        { additionalProperties: false, description: 'One cookie.' },
      ),
      { maxItems: 50, description: 'Cookies for this call only.' },
    ),
  ),
  location: Type.Optional(
    Type.Object(
      {
        country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Two-letter country (DE): its language, locale and timezone. A country the service has no settings for (see the README) is a 400, unless languages are given: then they apply, and no timezone.' })),
        languages: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$', description: 'A language tag.' }), { maxItems: 10, description: 'Preferred languages, first first.' })),
      },
      { additionalProperties: false, description: 'Where the visit appears to come from.' },
    ),
  ),
  blockAds: Type.Optional(Type.Boolean({ description: 'Block ad and tracker hosts.' })),
  actions: Type.Optional(Type.Array(ScrapeAction, { maxItems: MAX_ACTIONS, description: 'Page actions in order after load (at most 50); outcomes in `actions`.' })),
  maxAge: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 24 * 3600 * 1000, description: 'Reuse a stored scrape of the same URL and options up to this many ms old.' })),
  storeInCache: Type.Optional(Type.Boolean({ description: 'Store this answer for `maxAge` calls (default: with maxAge).' })),
  parsePDF: Type.Optional(Type.Boolean({ description: 'Read a PDF or office file to text (default true); false: a file link in content (then without formats).' })),
  proxy: Type.Optional(Type.Union([Type.Literal('none'), Type.Literal('default')], { description: "default: the operator's WEB_PROXY_URL if set; none: direct." })),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'changeTracking: a separate snapshot history per tag (needs the changeTracking format).' })),
  changeTrackingOptions: Type.Optional(
    Type.Object(
      {
        modes: Type.Optional(
          Type.Array(Type.Union([Type.Literal('git-diff'), Type.Literal('json')]), {
            minItems: 1,
            maxItems: 2,
            uniqueItems: true,
            description: 'git-diff (default): markdown diff; json: model-extracted fields compared.',
          }),
        ),
        schema: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'json: the fields, as a JSON Schema or {"field": "type"}.' })),
        prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000, description: 'json: what to extract.' })),
      },
      { additionalProperties: false, description: `changeTracking modes; json needs a model, +${CHANGE_TRACKING_JSON_CREDITS} credits when it extracts.` },
    ),
  ),
};

/** The fields the answer gains (issue 27), each only when asked for. */
export const scrapeOutputFields = {
  markdown: Type.Optional(Type.String({ description: 'formats markdown (or changeTracking): the page as markdown.' })),
  html: Type.Optional(Type.String({ description: 'formats html: the cleaned HTML (scripts and styles removed); for a text page or a document, its text escaped in a <pre>.' })),
  rawHtml: Type.Optional(Type.String({ description: 'formats rawHtml: the document as served (or as rendered, with renderJs); for a text page the body as served, for a document its extracted text.' })),
  links: Type.Optional(Type.Array(Type.String(), { description: 'formats links: every absolute http(s) link on the page (for a text page or a document: the URLs written in its text).' })),
  screenshot: Type.Optional(Type.String({ description: 'formats screenshot or screenshot@fullPage: temporary URL of the PNG (24 h); with both, the viewport capture.' })),
  screenshotFullPage: Type.Optional(Type.String({ description: 'formats screenshot@fullPage: temporary URL of the full-page PNG (24 h), also when screenshot is asked for too.' })),
  actions: Type.Optional(Type.Array(ActionOutcome, { description: 'The outcome of each action, in order.' })),
  changeTracking: Type.Optional(ChangeTracking),
};

/** Headers a caller may not set: the connection's own and the host. */
const REFUSED_HEADERS = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length', 'expect', 'http2-settings']);

/** The 400 text for a header a caller may not set, or undefined. */
export function checkScrapeHeaders(headers: Record<string, string> | undefined): string | undefined {
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return `'headers' has an invalid header name: '${name.slice(0, 100)}'.`;
    if (REFUSED_HEADERS.has(name.toLowerCase())) return `'headers' must not set Host or hop-by-hop headers (got '${name}').`;
    if (/[\r\n\0]/.test(value)) return `'headers' value of '${name}' must not contain line breaks.`;
  }
  return undefined;
}
