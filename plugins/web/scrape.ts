/**
 * The web plugin's scrape (spec §4.5, issue 27): the cache first when `maxAge` allows, then the
 * page (browser with the call's own context, or a plain fetch), its formats made off the main
 * thread, screenshots and action captures stored as files, documents read to text by the
 * service's doc-to-text capability, and the change-tracking comparison (json mode through the
 * extraction lane's `extract_text`).
 */
import { createHash } from 'node:crypto';
import { InputError, NotConfiguredError, ProviderNotAllowedError, type Static } from '../../core/sdk.js';
import { EXTRACT_TEXT_MAX_CHARS, wantsJsonTracking, type ScrapeOutput } from '../../core/catalogue.js';
import { fetchPage, limitsFrom, pdfText, type FetchedPage } from './fetch-page.js';
import { pageData, type WebContext } from './work.js';
import { planScrape, type ScrapeInput, type ScrapePlan } from './scrape-plan.js';
import { checkTrackable, computeDiffer, trackChange, type JsonTracking } from './change-tracking.js';
import { checkTagSelectors } from './selector-check.js';
import { cacheEntry, servable } from './cache-entry.js';

type Out = Static<typeof ScrapeOutput>;

/** Largest answer stored in the cache, in bytes of JSON (a bigger one is answered, not stored). */
const MAX_CACHED_BYTES = 5 * 1024 * 1024;

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(png: Uint8Array): { width?: number; height?: number } {
  if (png.byteLength < 24) return {};
  const b = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** Stores a PNG behind a temporary URL; its expiry is added to `expiries` when given (the cache entry's). */
export async function storePng(ctx: WebContext, png: Uint8Array, expiries?: Date[]) {
  const file = await ctx.engines.files.put(png, { contentType: 'image/png', extension: 'png' });
  ctx.usage.add('output_bytes', png.byteLength);
  expiries?.push(file.expiresAt);
  return file;
}

/** Runs one scrape. */
export async function scrape(input: ScrapeInput, ctx: WebContext): Promise<Out> {
  const { maxBytes, timeoutMs } = limitsFrom(ctx.config);
  const plan = planScrape(input, timeoutMs, ctx.caller);
  await checkTagSelectors(input);
  const store = ctx.engines.pageStore;
  if (plan.readCache && plan.cacheKey) {
    // Nothing older than the retention setting is served, whatever maxAge allows.
    const maxAge = Math.min(input.maxAge!, retention(ctx).cacheMs);
    const hit = await store.cacheGet(plan.cacheKey, maxAge).catch((err: unknown) => void ctx.log.warn({ err: String(err) }, 'scrape cache unreadable; fetching'));
    const entry = hit && servable(hit.value);
    if (hit && entry) {
      // The OCR the answer took is charged as when it was made (held first: 403, free, if the key cannot cover it).
      if (entry.ocrPages) {
        await ctx.reserveFor({ ocr_pages: entry.ocrPages });
        ctx.usage.add('ocr_pages', entry.ocrPages);
      }
      const out = entry.answer as Out;
      return { ...out, metadata: { ...out.metadata, cacheState: 'hit', cachedAt: hit.storedAt.toISOString() } };
    }
  }
  const expiries: Date[] = [];
  const out = await fresh(input, plan, ctx, maxBytes, expiries);
  // Stored before the answer goes out, so the caller's next call (on any instance) can use it;
  // a store that is down costs the cache, not the call.
  if (plan.cacheKey && plan.writeCache && JSON.stringify(out).length <= MAX_CACHED_BYTES) {
    // This call's OCR pages are doc_text's (an inner call), listed with its usage.
    await store
      .cachePut(plan.cacheKey, cacheEntry(out, expiries, ctx.usage.units.ocr_pages ?? 0))
      .then(() => prune(ctx))
      .catch((err: unknown) => ctx.log.warn({ err: String(err) }, 'scrape answer not cached'));
  }
  if (plan.readCache) return { ...out, metadata: { ...out.metadata, cacheState: 'miss' } };
  return out;
}

/** WEB_CACHE_RETENTION_MS and WEB_SNAPSHOT_RETENTION_DAYS, in ms. */
function retention(ctx: WebContext): { cacheMs: number; snapshotMs: number } {
  return { cacheMs: Number(ctx.config.cacheRetentionMs) || 86_400_000, snapshotMs: (Number(ctx.config.snapshotRetentionDays) || 90) * 86_400_000 };
}

/** When each store was last pruned: per store, so a service's first write or snapshot prunes at once. */
const lastPrune = new WeakMap<object, number>();
/**
 * Drops cache entries and snapshots past their retention, at most once a minute per store and
 * process; run after a cache write and after a snapshot (change tracking, monitor runs), so a
 * service that only tracks changes still forgets old snapshots (issue 27 audit, finding 3).
 */
async function prune(ctx: WebContext): Promise<void> {
  const store = ctx.engines.pageStore;
  if (Date.now() - (lastPrune.get(store) ?? 0) < 60_000) return;
  lastPrune.set(store, Date.now());
  await store.prune(retention(ctx));
}

async function fresh(input: ScrapeInput, plan: ScrapePlan, ctx: WebContext, maxBytes: number, expiries: Date[]): Promise<Out> {
  const shots = plan.formats.filter((f) => f === 'screenshot' || f === 'screenshot@fullPage');
  // The engine takes one capture per render; with both kinds, the viewport one is an action at the end.
  const actions = shots.length === 2 ? [...plan.actions, { type: 'screenshot' as const, fullPage: false }] : plan.actions;
  const page = await fetchPage(ctx, {
    url: plan.url,
    renderJs: plan.renderJs,
    screenshot: shots.length ? { fullPage: shots.includes('screenshot@fullPage') } : undefined,
    viewport: input.mobile ? { width: 390, height: 844, mobile: true } : undefined,
    waitMs: input.waitFor,
    timeoutMs: plan.timeoutMs,
    maxBytes,
    headers: input.headers,
    cookies: input.cookies,
    browser: { waitForSelector: input.waitForSelector, actions, blockUrls: plan.blockUrls, locale: plan.locale, owner: ctx.caller },
    documents: 'bytes',
    proxy: input.proxy,
  });
  // Before any work on the page: a server error is no state of the page to compare or keep.
  if (plan.formats.includes('changeTracking')) checkTrackable(plan.url, page.status);
  if (page.kind !== 'html') {
    // Before any work on the file (reading a document costs): what needs a page shown by the browser cannot apply.
    const notPage = `it is not a web page (${page.contentType.split(';')[0] || 'unknown type'})`;
    if (shots.length) throw new InputError(`Cannot take a screenshot of ${page.url}: ${notPage}.`);
    if (plan.actions.length) throw new InputError(`Cannot run actions on ${page.url}: ${notPage}.`);
    return page.kind === 'document' ? document(page, input, plan, ctx, expiries) : textAnswer(page, input, plan, ctx);
  }
  if (shots.length && !page.screenshot) throw new InputError(`Cannot take a screenshot of ${page.url}: it is not a web page (${page.contentType || 'unknown type'}).`);
  // An HTML page the browser did not show (sent as a download) was read by a plain fetch: no action ran on it.
  if (plan.actions.length && !page.actions) throw new InputError(`Cannot run actions on ${page.url}: the browser did not show it as a page (${page.contentType || 'unknown type'}).`);

  const wanted = plan.formats.filter((f): f is 'markdown' | 'html' | 'rawHtml' | 'links' => ['markdown', 'html', 'rawHtml', 'links'].includes(f));
  if (plan.formats.includes('changeTracking') && !wanted.includes('markdown')) wanted.push('markdown');
  const done = await ctx.state.pages.run(
    'scrapeFormats',
    { ...pageData(page), formats: wanted, cleaned: plan.cleaned, includeTags: input.includeTags, excludeTags: input.excludeTags, fullDocument: plan.legacy },
    { signal: ctx.signal },
  );
  if (done.warning) ctx.log.warn({ url: page.url }, done.warning);
  const out: Out = { title: done.title || page.title || '', url: page.url, content: '', metadata: done.metadata, format: plan.formats[0]!, cleaned: plan.cleaned };

  let shotUrl: string | undefined;
  let fullShotUrl: string | undefined;
  if (page.screenshot) {
    const file = await storePng(ctx, page.screenshot, expiries);
    if (shots.includes('screenshot@fullPage')) fullShotUrl = file.url;
    else shotUrl = file.url;
    // The v1 screenshot format's metadata: when the link expires and the image's size.
    if (plan.legacy) Object.assign(out.metadata, { expiresAt: file.expiresAt.toISOString(), ...pngSize(page.screenshot) });
  }
  const outcomes = page.actions ? await actionOutcomes(page, ctx, expiries) : undefined;
  if (shots.length === 2) shotUrl = outcomes?.pop()?.screenshot;
  if (plan.actions.length) out.actions = outcomes;

  const values: Record<string, string | undefined> = {
    markdown: done.markdown,
    html: done.html,
    rawHtml: done.rawHtml,
    links: done.links?.join('\n'),
    screenshot: shotUrl,
    'screenshot@fullPage': fullShotUrl,
    changeTracking: done.markdown,
  };
  out.content = values[plan.formats[0]!] ?? '';
  if (!plan.legacy) {
    if (done.markdown !== undefined && plan.formats.includes('markdown')) out.markdown = done.markdown;
    if (done.html !== undefined) out.html = done.html;
    if (done.rawHtml !== undefined) out.rawHtml = done.rawHtml;
    if (done.links) out.links = done.links;
    // The same fields whatever the order of the formats: `screenshot` is the viewport capture when
    // `screenshot` was asked for, else the full page (the one capture there is); the full-page
    // capture also has a field of its own, so a client asking for both never guesses which is which.
    if (shotUrl ?? fullShotUrl) out.screenshot = shotUrl ?? fullShotUrl;
    if (fullShotUrl) out.screenshotFullPage = fullShotUrl;
  }
  if (plan.formats.includes('changeTracking')) out.changeTracking = await changeTracking(ctx, input, plan, page, done.markdown ?? '');
  return out;
}

/** Stores each action's capture and turns the engine's results into the answer's outcomes. */
async function actionOutcomes(page: FetchedPage, ctx: WebContext, expiries: Date[]): Promise<NonNullable<Out['actions']>> {
  const out: NonNullable<Out['actions']> = [];
  for (const a of page.actions ?? []) {
    const { screenshot, ...rest } = a;
    out.push(screenshot ? { ...rest, screenshot: (await storePng(ctx, screenshot, expiries)).url } : rest);
  }
  return out;
}

async function changeTracking(ctx: WebContext, input: ScrapeInput, plan: ScrapePlan, page: { url: string; status: number }, markdown: string) {
  // Snapshots belong to a key; a call without one (none today) compares against nothing.
  if (!ctx.caller) return { previousScrapeAt: null, changeStatus: 'new' as const, visibility: 'visible' as const };
  const retentionMs = retention(ctx).snapshotMs;
  const o = input.changeTrackingOptions;
  const modes = { diff: !o?.modes || o.modes.includes('git-diff') ? computeDiffer(ctx.engines.compute, { signal: ctx.signal, owner: ctx.caller }) : undefined, json: wantsJsonTracking(input) ? jsonTracking(ctx, o!) : undefined };
  const tracked = await trackChange(ctx.engines.pageStore, { owner: ctx.caller, url: plan.url, tag: input.tag ?? '', retentionMs }, { markdown, status: page.status }, modes);
  await prune(ctx).catch((err: unknown) => ctx.log.warn({ err: String(err) }, 'old snapshots not pruned'));
  // The extraction's price is added only when the model was asked (see scrapeCost).
  if (tracked.extracted) ctx.usage.add('json_extractions', 1);
  return tracked.result;
}

/**
 * json mode's extraction: the page's markdown through the `extract_text` capability (the
 * extraction lane's configured model; `ctx.call` keeps the key's policy, and a missing model
 * answers `Service not configured` for the whole call, nothing charged).
 */
function jsonTracking(ctx: WebContext, o: NonNullable<ScrapeInput['changeTrackingOptions']>): JsonTracking {
  const spec = createHash('sha256').update(JSON.stringify({ schema: o.schema ?? null, prompt: o.prompt ?? null })).digest('hex');
  return {
    spec,
    async extract(markdown) {
      const text = markdown.trim() ? markdown.slice(0, EXTRACT_TEXT_MAX_CHARS) : '(The page has no text.)';
      const r = await ctx.call<{ results: Record<string, unknown> }>('extract_text', { text, schema: o.schema, prompt: o.prompt });
      return r.results;
    },
  };
}

/**
 * A plain-text page, or a document's text (issue 27): every text format from the text itself.
 * `markdown` is the text; `html` the text escaped in a `<pre>`; `rawHtml` the text as served (for
 * a document, which has no markup, its extracted text); `links` the absolute http(s) URLs written
 * in it. A legacy call (`format` only) keeps its old answer: the text in `content`.
 */
async function textAnswer(page: FetchedPage, input: ScrapeInput, plan: ScrapePlan, ctx: WebContext): Promise<Out> {
  const text = page.body;
  const title = text.split('\n').find((l) => l.trim())?.trim().slice(0, 200) ?? '';
  const links = plan.formats.includes('links') ? textLinks(text) : undefined;
  const values: Record<string, string | undefined> = {
    markdown: text,
    html: plan.formats.includes('html') ? `<pre>${escapeHtml(text)}</pre>` : undefined,
    rawHtml: text,
    links: links?.join('\n'),
    changeTracking: text,
  };
  const content = plan.legacy ? text : (values[plan.formats[0]!] ?? '');
  const out: Out = { title, url: page.url, content, metadata: { statusCode: page.status, contentType: page.contentType }, format: plan.formats[0]!, cleaned: plan.cleaned };
  if (!plan.legacy) {
    if (plan.formats.includes('markdown') || plan.formats.includes('changeTracking')) out.markdown = text;
    if (values.html !== undefined) out.html = values.html;
    if (plan.formats.includes('rawHtml')) out.rawHtml = text;
    if (links) out.links = links;
  }
  if (plan.formats.includes('changeTracking')) out.changeTracking = await changeTracking(ctx, input, plan, page, text);
  return out;
}

/** The absolute http(s) URLs written in a text, once each in order, without the punctuation that ends a sentence. */
export function textLinks(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/\bhttps?:\/\/[^\s<>"'`]+/gi)) {
    let raw = m[0].replace(/[.,;:!?\]}]+$/, '');
    // A closing parenthesis is the sentence's unless the URL opened one (…/Foo_(bar)).
    while (raw.endsWith(')') && raw.split('(').length <= raw.split(')').length - 1) raw = raw.slice(0, -1).replace(/[.,;:!?\]}]+$/, '');
    try {
      found.add(new URL(raw).href);
    } catch {
      // Not a URL after all (a bare "http://").
    }
  }
  return [...found];
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * A PDF or office document behind the URL (issue 27): read to text by the service's doc-to-text
 * capability (`ctx.call`, priced inside this scrape), or with `parsePDF: false` stored as a file
 * and answered as its temporary link. Without a doc-to-text provider a PDF is still read by
 * pdftotext, as before; an office file is then refused.
 */
async function document(page: FetchedPage, input: ScrapeInput, plan: ScrapePlan, ctx: WebContext, expiries: Date[]): Promise<Out> {
  const bytes = page.bytes!;
  if (input.parsePDF === false) {
    // The caller asked for the file, not its text: a format made from the text cannot apply.
    if (!plan.legacy) {
      throw new InputError(`Cannot make ${plan.formats[0]} of ${page.url}: with 'parsePDF: false' a document is answered as its file link in 'content' (leave out 'formats', or 'parsePDF').`);
    }
    const file = await ctx.engines.files.put(bytes, { contentType: page.contentType.split(';')[0]!, extension: page.extension! });
    ctx.usage.add('output_bytes', bytes.byteLength);
    expiries.push(file.expiresAt);
    const metadata = { statusCode: page.status, contentType: page.contentType, expiresAt: file.expiresAt.toISOString() };
    return { title: '', url: page.url, content: file.url, metadata, format: plan.formats[0]!, cleaned: plan.cleaned };
  }
  let text: string;
  try {
    const r = await ctx.call<{ text: string }>('doc_to_text', { inputMethod: 'base64', file: Buffer.from(bytes).toString('base64'), fileExtension: page.extension });
    text = r.text;
  } catch (err) {
    if (!(err instanceof NotConfiguredError || err instanceof ProviderNotAllowedError)) throw err;
    if (page.extension !== 'pdf') {
      throw new InputError(`Unsupported content type '${page.contentType.split(';')[0]}' at ${page.url}: office documents need the doc-to-text capability, which is not available.`);
    }
    text = await pdfText(bytes, ctx.signal, ctx.engines.tools);
  }
  return textAnswer({ ...page, kind: 'pdf', body: text }, input, plan, ctx);
}
