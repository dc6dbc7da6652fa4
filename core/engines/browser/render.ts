/**
 * One render job in a fresh browser context (issue 4): the SSRF guard on every request the page
 * makes, a load wait that stops when the network has been quiet briefly (networkidle0 costs
 * ≥ 500 ms on every page), then the DOM and an optional PNG.
 */
import type { HTTPRequest, HTTPResponse, Page } from 'puppeteer-core';
import type { FreshPage } from './fresh-page.js';
import { InputError, ServiceError, UpstreamError } from '../../errors.js';
import { responseTooLarge, show } from '../http/index.js';
import { charsetOfContentType, isNonAsciiUtf8, singleByteCharacters } from '../http/decode.js';
import { capture, scrollThrough } from './screenshot.js';
import { readSettledDom } from './read-dom.js';
import { runActions } from './actions.js';
import { watchAskedNavigations } from './asked-navigation.js';
import { prepareContext } from './job-setup.js';
import type { SsrfGuard } from '../http/guard.js';
import type { RenderRequest, RenderResult } from './types.js';

/**
 * A document the browser shows as a page: HTML, XHTML and XML types. Not just any type with "xml"
 * in it: every Office Open XML type (`application/vnd.openxmlformats-…`) has, and such a download
 * is a document to read, not a failed page.
 */
const MARKUP_TYPE = /text\/html|[/+]xml\b/i;

// Long enough to see a request a script starts right after load; short next to a page load.
const QUIET_MS = 25;
const SETTLE_CAP_MS = 2_500;
/** How long a navigation an action asked for may take to start its request (a few ms normally). */
const ASKED_NAVIGATION_WAIT_MS = 500;
// Reads of a page that keeps starting requests: the last one is returned as it stands.
const MAX_QUIET_READS = 3;
// A quick meta refresh (≤ 1 s) plus the next page's load (or a script's navigation during the read).
const REFRESH_WAIT_MS = 6_000;

/**
 * Checks the page URL before a page slot is taken: a refused URL costs no browser work. A host
 * that does not resolve is the plain fetch's 502, in its words, not an internal error.
 */
export async function precheck(guard: SsrfGuard, req: RenderRequest): Promise<URL> {
  if (req.guard === false) return new URL(req.url);
  const target = guard.checkUrl(req.url);
  try {
    await guard.checkHost(target.hostname);
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    const code = (err as { code?: string })?.code;
    const why = code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA' ? 'the host name does not resolve' : code ?? 'network error';
    throw new UpstreamError(`Failed to retrieve ${show(target)}: ${why}.`, { cause: err });
  }
  return target;
}

/**
 * Renders `req` (already prechecked as `target`) in a fresh context the pool closes afterwards.
 * With `maxBytes`, the job stops as soon as the page has downloaded more than that; closing the
 * context (the pool does it when the job ends) cuts whatever is still loading.
 */
export async function renderPage(fresh: FreshPage, guard: SsrfGuard, req: RenderRequest, target: URL): Promise<RenderResult> {
  const max = req.maxBytes;
  let onOver!: (err: ServiceError) => void;
  const over = new Promise<never>((_, reject) => (onOver = reject));
  const check = (total: number) => {
    if (max && max > 0 && total > max) onOver(responseTooLarge(target, max));
  };
  fresh.meter.onData = check;
  check(fresh.meter.bytes);
  // Every step is bounded by the timeout on its own; this bounds their sum (reading and capturing
  // a page get their usual slack), so no job holds its slot past its time.
  const timeoutMs = req.timeoutMs ?? 20_000;
  const timer = setTimeout(() => onOver(new UpstreamError(`Failed to retrieve ${show(target)}: the page was not done within ${Math.round(timeoutMs / 100) / 10} s.`)), timeoutMs + JOB_SLACK_MS);
  const job = render(fresh, guard, req, target);
  // Once over the cap or the time the job's own outcome no longer matters (it fails when its context closes).
  job.catch(() => undefined);
  try {
    return await Promise.race([job, over]);
  } finally {
    clearTimeout(timer);
    fresh.meter.onData = undefined;
  }
}

/** Time a job may take beyond its timeout to read, settle and capture the page. */
const JOB_SLACK_MS = 10_000;

async function render(fresh: FreshPage, guard: SsrfGuard, req: RenderRequest, target: URL): Promise<RenderResult> {
  const timeoutMs = req.timeoutMs ?? 20_000;
  const useGuard = req.guard !== false;
  const blocked: RenderResult['blocked'] = [];
  let mainBlock: InputError | undefined;
  const page = fresh.page;
  const deadline = Date.now() + timeoutMs;
  page.setDefaultTimeout(timeoutMs);
  const vp = await prepareContext(fresh, req, target);
  const inflight = trackNetwork(page);
  // A document served again as UTF-8 (see `fixCharset`): answered from its bytes, not fetched.
  let again: { url: string; body: Buffer; headers: Record<string, string>; status: number } | undefined;
  const reserved = (r: HTTPRequest): boolean => {
    if (!again || !r.isNavigationRequest() || r.frame() !== page.mainFrame() || r.url() !== again.url) return false;
    const { body, headers, status } = again;
    again = undefined;
    r.respond({ status, headers, body }).catch(() => undefined);
    return true;
  };
  // Interception costs a round trip per request; skip it when the operator opened everything.
  if (useGuard && !guard.policy.allowPrivate) {
    await page.setRequestInterception(true);
    const verdicts = new Map<string, Promise<void>>();
    page.on('request', (r) => {
      if (reserved(r)) return;
      void screen(r, guard, verdicts).then(
        () => r.continue().catch(() => undefined),
        (err: unknown) => {
          const reason = err instanceof ServiceError ? err.message : String(err);
          blocked.push({ url: r.url(), reason });
          if (r.isNavigationRequest() && r.frame() === page.mainFrame() && err instanceof InputError) mainBlock = err;
          r.abort('blockedbyclient').catch(() => undefined);
        },
      );
    });
  }

  // A document Chromium downloads instead of showing (a PDF, say) aborts the navigation; its
  // response, when reported, tells the caller what it was, so the caller can fetch it another way.
  let lastMain: HTTPResponse | null = null;
  page.on('response', (r) => {
    if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) lastMain = r;
  });
  const abort = req.signal ? abortPromise(req.signal) : undefined;
  let response: HTTPResponse | null;
  try {
    const nav = page.goto(target.href, { waitUntil: 'load', timeout: timeoutMs });
    response = await (abort ? Promise.race([nav, abort]) : nav);
  } catch (err) {
    if (mainBlock) throw mainBlock;
    if (err instanceof ServiceError) throw err;
    const got = lastMain as HTTPResponse | null;
    // A page sent as an attachment is downloaded, not shown, whatever its type: the caller reads
    // the fetched body instead, as for a document (a plain fetch of it answers 200).
    const download = /^\s*attachment/i.test(got?.headers()['content-disposition'] ?? '');
    if (!/ERR_ABORTED/.test(String(err)) || (got && MARKUP_TYPE.test(got.headers()['content-type'] ?? '') && !download)) {
      throw navigationError(target, err, timeoutMs);
    }
    // The headless shell reports no response for a download at all: the caller learns what the
    // document is by fetching it (an empty, non-HTML result says "not rendered").
    if (!got) return { status: 0, url: target.href, headers: {}, contentType: '', html: '', title: '', blocked };
    return { status: got.status(), url: got.url(), headers: got.headers(), contentType: got.headers()['content-type'] ?? '', html: '', title: '', blocked };
  }
  // A page may navigate itself once loaded (meta refresh, script, auto-submitted form). Going to
  // a refused address is the guard's refusal; any other failed navigation leaves Chromium's error
  // page, which is no content to return (or bill): checked again after each step below.
  const stillThere = (href = page.url()) => {
    if (mainBlock) throw mainBlock;
    if (href.startsWith('chrome-error:')) throw new UpstreamError(`Failed to retrieve ${show(target)}: the page navigated to an address that could not be loaded.`);
  };
  stillThere();
  const headers = response?.headers() ?? {};
  const contentType = headers['content-type'] ?? '';
  const html = MARKUP_TYPE.test(contentType) || !response;
  if (html && response && !charsetOfContentType(contentType)) {
    // Issue 27: a meta charset that contradicts valid UTF-8 bytes loses to the bytes. Chromium
    // follows the meta, so such a document is loaded once more, served as UTF-8 from its bytes.
    const body = await utf8Against(page, response);
    if (body) {
      again = { url: response.url(), body, status: response.status(), headers: { ...headers, 'content-type': `${contentType.split(';')[0] || 'text/html'}; charset=utf-8` } };
      if (!useGuard || guard.policy.allowPrivate) {
        await page.setRequestInterception(true);
        page.on('request', (r) => {
          if (!reserved(r)) r.continue().catch(() => undefined);
        });
      }
      response = (await page.goto(response.url(), { waitUntil: 'load', timeout: Math.max(1, deadline - Date.now()) })) ?? response;
      again = undefined;
    }
  }
  // Requests still loading after the load event (a script's fetch) are waited out; a page that
  // went quiet is read at once, the read itself letting it run its next timers and frame first
  // (issue 27: a fixed quiet period cost every page ~25 ms). See `readWhenQuiet` below.
  if (html && inflight.busy()) await inflight.quiet(QUIET_MS, SETTLE_CAP_MS);
  if (html && req.autoScroll) {
    // Lazy content loads as it comes into view; what it fetched settles before the DOM is read.
    await scrollThrough(page, req.autoScroll.maxMs);
    await inflight.quiet(QUIET_MS, SETTLE_CAP_MS);
  }
  if (html && req.waitForSelector) {
    try {
      await page.waitForSelector(req.waitForSelector, { timeout: Math.max(1, deadline - Date.now()) });
    } catch (err) {
      stillThere();
      if (/is not a valid selector|SyntaxError/i.test(String(err))) throw new InputError(`'waitForSelector' is not a valid CSS selector: '${req.waitForSelector}'.`);
      throw new UpstreamError(`Failed to retrieve ${show(target)}: no element matched '${req.waitForSelector}' within ${Math.round(timeoutMs / 100) / 10} s.`);
    }
  }
  if (req.waitMs) {
    // A wait the timeout would cut short reads the page early and bills it: the deadline's error
    // instead (free), as for a `wait` action; known now, so no slot is held to find it out.
    if (req.waitMs > deadline - Date.now()) throw new UpstreamError(`'waitFor' (${req.waitMs} ms) did not finish within the scrape's timeout.`);
    await new Promise((r) => setTimeout(r, req.waitMs));
  }
  stillThere();
  let actions: RenderResult['actions'];
  if (html && req.actions?.length) {
    let navigated = false;
    let seen = inflight.changes;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigated = true;
    });
    const asked = watchAskedNavigations(page);
    actions = await runActions(
      {
        page,
        viewport: vp,
        deadline,
        maxCaptureBytes: req.maxBytes,
        settle: async () => {
          // A navigation the action asked for whose request has not shown yet: wait for it to
          // show (then for quiet below), so where the page went is checked before it is read.
          if ((await asked.since()) && inflight.changes === seen) await inflight.changed(seen, ASKED_NAVIGATION_WAIT_MS);
          // Only an action that started or ended a request has anything to wait for: the page's
          // own earlier requests (its load, just before) are not the action's (issue 27).
          if (inflight.changes !== seen || inflight.busy()) await inflight.quiet(QUIET_MS, SETTLE_CAP_MS);
          seen = inflight.changes;
          stillThere();
          // A navigation the action started: the next step sees the new document once loaded.
          // Only then: a wait in the page costs a round trip or a frame per action.
          if (!navigated) return;
          navigated = false;
          await page.waitForFunction('document.readyState === "complete"', { polling: 20, timeout: Math.max(1, Math.min(SETTLE_CAP_MS, deadline - Date.now())) }).catch(() => undefined);
          stillThere();
        },
      },
      req.actions,
    ).finally(() => asked.stop());
    // Actions may have moved the page on: its status and headers are then the new document's.
    response = (lastMain as HTTPResponse | null) ?? response;
  }
  try {
    let dom = { html: '', title: '', href: page.url() };
    let doc = response;
    if (html) {
      // A read during which the page started a request (what its timers or first frame after
      // load did) is taken again once the network is quiet: the request may change the DOM.
      let navigated = false;
      for (let tries = 1; ; tries++) {
        const before = inflight.changes;
        const read = await readSettledDom(page, {
          deadline: Date.now() + Math.min(timeoutMs, REFRESH_WAIT_MS),
          replaced: async () => {
            stillThere();
            await inflight.quiet(QUIET_MS, SETTLE_CAP_MS);
          },
          frame: true,
        });
        dom = read.dom;
        navigated ||= read.navigated;
        if (tries >= MAX_QUIET_READS || inflight.changes === before) break;
        await inflight.quiet(QUIET_MS, SETTLE_CAP_MS);
        stillThere();
      }
      // The status and headers are those of the document read, not of the one it replaced.
      if (navigated) doc = (lastMain as HTTPResponse | null) ?? response;
    }
    stillThere(dom.href);
    const docHeaders = doc?.headers() ?? {};
    const result: RenderResult = { status: doc?.status() ?? 0, url: page.url(), headers: docHeaders, contentType: docHeaders['content-type'] ?? contentType, html: dom.html, title: dom.title, blocked, ...(actions ? { actions } : {}) };
    if (req.screenshot) {
      Object.assign(result, await capture(page, vp, req.screenshot));
      stillThere();
    }
    return result;
  } catch (err) {
    // A navigation under way destroys the page's context: say where it went rather than "failed".
    stillThere();
    throw err;
  }
}

/**
 * The document's bytes when Chromium decoded them as something other than UTF-8 although they
 * are valid UTF-8 with non-ASCII in them (what a lying meta charset does), else undefined.
 * Chromium hands out a text document's body already decoded with the charset it chose, so the
 * bytes are recovered by encoding that text back, which is exact for single-byte charsets (the
 * ones such pages claim: windows-1252, ISO-8859-x); other charsets are left as Chromium read them.
 */
async function utf8Against(page: Page, response: HTTPResponse): Promise<Buffer | undefined> {
  const used = String(await page.evaluate('document.characterSet').catch(() => 'UTF-8'));
  if (/^utf-?8$/i.test(used)) return undefined;
  const text = await response.text().catch(() => undefined);
  const bytes = text === undefined ? undefined : encodeSingleByte(text, used);
  return bytes && isNonAsciiUtf8(bytes) ? bytes : undefined;
}

/** `text` encoded in the single-byte charset `label`, or undefined (not single-byte, or a character it lacks). */
function encodeSingleByte(text: string, label: string): Buffer | undefined {
  const chars = singleByteCharacters(label);
  if (!chars) return undefined;
  const table = new Map(chars.map((ch, b) => [ch, b]));
  const out = Buffer.allocUnsafe(text.length);
  let i = 0;
  for (const ch of text) {
    const b = table.get(ch);
    if (b === undefined) return undefined;
    out[i++] = b;
  }
  return out.subarray(0, i);
}

/** Decides one request: data/blob URLs pass, other schemes are refused, hosts go through the guard. */
function screen(r: HTTPRequest, guard: SsrfGuard, verdicts: Map<string, Promise<void>>): Promise<void> {
  let url: URL;
  try {
    url = new URL(r.url());
  } catch {
    return Promise.reject(new InputError(`Invalid URL: ${r.url().slice(0, 200)}`));
  }
  if (url.protocol === 'data:' || url.protocol === 'blob:') return Promise.resolve();
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new InputError(`URL not allowed: only http and https URLs can be fetched (got ${url.protocol.replace(/:$/, '')}).`));
  }
  // One lookup per host per job; Chromium connects right after, so the window is small.
  let v = verdicts.get(url.hostname);
  if (!v) {
    v = guard.checkHost(url.hostname).then(() => undefined);
    verdicts.set(url.hostname, v);
  }
  return v;
}

/** Counts requests in flight so the load wait can stop as soon as the page has gone quiet. */
function trackNetwork(page: Page) {
  let count = 0;
  let changes = 0;
  let lastChange = Date.now();
  const change = (d: number) => {
    count = Math.max(0, count + d);
    changes++;
    lastChange = Date.now();
  };
  page.on('request', () => change(1));
  page.on('requestfinished', () => change(-1));
  page.on('requestfailed', () => change(-1));
  return {
    /** Requests started or ended so far. */
    get changes() {
      return changes;
    },
    /** Whether a request is in flight. */
    busy: () => count > 0,
    /** Resolves once a request started or ended after `since` changes were counted, or after `capMs`. */
    async changed(since: number, capMs: number) {
      const deadline = Date.now() + capMs;
      while (changes === since && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    },
    async quiet(quietMs: number, capMs: number) {
      const deadline = Date.now() + capMs;
      lastChange = Math.min(lastChange, Date.now());
      for (;;) {
        const now = Date.now();
        if (now >= deadline) return;
        if (count === 0 && now - lastChange >= quietMs) return;
        await new Promise((r) => setTimeout(r, count === 0 ? Math.max(5, quietMs - (now - lastChange)) : 20));
      }
    },
  };
}

function abortPromise(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function navigationError(target: URL, err: unknown, timeoutMs: number): ServiceError {
  const msg = err instanceof Error ? err.message : String(err);
  const where = `${target.protocol}//${target.host}${target.pathname}`;
  if (/timeout/i.test(msg)) return new UpstreamError(`Failed to retrieve ${where}: no response within ${Math.round(timeoutMs / 100) / 10} s.`, { cause: err });
  const net = /net::(ERR_[A-Z_]+)/.exec(msg)?.[1];
  const why = net === 'ERR_NAME_NOT_RESOLVED' ? 'the host name does not resolve' : net === 'ERR_CONNECTION_REFUSED' ? 'connection refused' : net ?? 'the browser could not load the page';
  return new UpstreamError(`Failed to retrieve ${where}: ${why}.`, { cause: err });
}
