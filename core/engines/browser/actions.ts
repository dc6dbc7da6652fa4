/**
 * Page actions (issue 27): click, type, press, scroll, wait, capture and run a script in the
 * page, in order, before the page is read. Every navigation an action causes goes through the
 * same request screening as the first load (the caller's `settle` checks where the page went),
 * and each action is bounded by what is left of the job's deadline.
 */
import type { KeyInput, Page, Viewport } from 'puppeteer-core';
import { InputError, PayloadTooLargeError, ServiceError, UpstreamError } from '../../errors.js';
import { capture } from './screenshot.js';
import { readDom } from './read-dom.js';
import type { ActionResult, PageAction } from './types.js';

/** What the action runner needs from the job. */
export interface ActionJob {
  page: Page;
  viewport: Viewport;
  /** When the whole job must be done (ms since the epoch). */
  deadline: number;
  /** Most bytes of HTML the `scrape` actions may capture in all (the page size cap); none when unset. */
  maxCaptureBytes?: number;
  /** Lets what the action started settle and checks where the page is (throws the guard's refusal). */
  settle(): Promise<void>;
}

const CONTEXT_LOST = /Execution context was destroyed|Cannot find context with specified id|Target closed|detached Frame/i;

/** Runs `actions` in order and returns each one's outcome; a failing action ends the job with a 400 naming it. */
export async function runActions(job: ActionJob, actions: PageAction[]): Promise<ActionResult[]> {
  const out: ActionResult[] = [];
  let captured = 0;
  for (const [i, action] of actions.entries()) {
    const started = Date.now();
    const left = job.deadline - started;
    const label = `Action ${i + 1} (${action.type})`;
    if (left <= 0) throw new UpstreamError(`${label} was not run: the scrape's timeout was reached.`);
    let result: Omit<ActionResult, 'type' | 'ms'>;
    try {
      result = await withDeadline(runOne(job, action, left), left, label);
    } catch (err) {
      // Where the page went is the clearer answer (the guard's refusal of a navigation).
      await job.settle();
      throw actionError(label, action, err);
    }
    await job.settle();
    // Fifty captures of a large page would be fifty pages in one answer: they share the page cap.
    captured += result.html ? Buffer.byteLength(result.html) : 0;
    if (job.maxCaptureBytes && captured > job.maxCaptureBytes) {
      throw new PayloadTooLargeError(`${label} failed: the pages captured by scrape actions are larger than the ${Math.round(job.maxCaptureBytes / 100_000) / 10} MB limit.`);
    }
    out.push({ type: action.type, ms: Date.now() - started, ...result });
  }
  return out;
}

async function runOne(job: ActionJob, a: PageAction, left: number): Promise<Omit<ActionResult, 'type' | 'ms'>> {
  const { page } = job;
  switch (a.type) {
    case 'wait':
      if (a.selector !== undefined) await page.waitForSelector(a.selector, { timeout: left });
      // The whole wait, not what is left of the call's time: a wait past the deadline is the
      // deadline's error (free), not a page read late and charged.
      else await new Promise((r) => setTimeout(r, a.milliseconds ?? 0).unref());
      return {};
    case 'click':
      await clickOn(page, a.selector);
      return {};
    case 'write':
      if (a.selector !== undefined) await page.type(a.selector, a.text);
      else await page.keyboard.type(a.text);
      return {};
    case 'press':
      await page.keyboard.press(a.key as KeyInput);
      return {};
    case 'scroll': {
      const sign = a.direction === 'up' ? -1 : 1;
      const found = await page.evaluate(
        (sel: string | null, amount: number | null, s: number) => {
          const el = sel ? document.querySelector(sel) : null;
          if (sel && !el) return false;
          const by = (amount ?? (el ? el.clientHeight : innerHeight)) * s;
          if (el) el.scrollBy(0, by);
          else scrollBy(0, by);
          return true;
        },
        a.selector ?? null,
        a.amount ?? null,
        sign,
      );
      if (!found) throw new InputError(`no element matches '${a.selector}'`);
      return {};
    }
    case 'screenshot': {
      const shot = await capture(page, job.viewport, { fullPage: a.fullPage ?? false });
      // A full-page capture grows the viewport; later actions and the read see the page as before.
      if (a.fullPage) await page.setViewport(job.viewport);
      return { screenshot: shot.screenshot };
    }
    case 'scrape': {
      const dom = await readDom(page);
      return { url: dom.href, html: dom.html };
    }
    case 'executeJavascript': {
      // A function body, so `return` hands a value back; the value must survive JSON.
      const value = await page.evaluate(`(async () => {\n${a.script}\n})().then((v) => v === undefined ? undefined : JSON.parse(JSON.stringify(v)))`);
      return value === undefined ? {} : { returnValue: value };
    }
  }
}

/**
 * A real mouse click (trusted events, hover first) in the middle of the first element matching
 * `selector`, scrolled into view when it is not wholly in it. Finding, scrolling and measuring
 * the element is one round trip (issue 27): puppeteer's own click takes five or more and waits
 * a frame to learn whether the element is in view.
 */
async function clickOn(page: Page, selector: string): Promise<void> {
  const point = await page.evaluate((sel: string) => {
    const el = document.querySelector(sel);
    if (!el) return 'missing';
    let box = el.getClientRects()[0];
    if (!box || box.width === 0 || box.height === 0) return 'hidden';
    if (box.top < 0 || box.left < 0 || box.bottom > innerHeight || box.right > innerWidth) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      box = el.getClientRects()[0] ?? box;
    }
    // The visible part's middle: a box larger than the viewport is clicked where it shows.
    const left = Math.max(box.left, 0);
    const top = Math.max(box.top, 0);
    const right = Math.min(box.right, innerWidth);
    const bottom = Math.min(box.bottom, innerHeight);
    if (right <= left || bottom <= top) return 'hidden';
    return { x: (left + right) / 2, y: (top + bottom) / 2 };
  }, selector);
  // Worded as puppeteer's own failures, which `actionError` turns into the caller's 400.
  if (point === 'missing') throw new Error(`No element found for selector: ${selector}`);
  if (point === 'hidden') throw new Error('Node is either not clickable or not an Element');
  await page.mouse.click(point.x, point.y);
}

function withDeadline<T>(work: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UpstreamError(`${label} did not finish within the scrape's timeout.`)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Puppeteer's failure in the caller's words: what the action could not do. */
function actionError(label: string, a: PageAction, err: unknown): ServiceError {
  if (err instanceof ServiceError) {
    return err.status === 400 && !err.message.startsWith('URL not allowed') ? new InputError(`${label} failed: ${err.message}.`) : err;
  }
  const msg = err instanceof Error ? err.message : String(err);
  const selector = 'selector' in a ? a.selector : undefined;
  if (/No element found|failed to find element|not an Element|Node is either not clickable|not visible/i.test(msg)) return new InputError(`${label} failed: no visible element matches '${selector}'.`);
  if (/Waiting for selector .* failed|TimeoutError|timeout/i.test(msg)) return new InputError(`${label} failed: no element matched '${selector ?? ''}' in time.`);
  if (/Unknown key/i.test(msg)) return new InputError(`${label} failed: unknown key '${(a as { key?: string }).key}'.`);
  if (/is not a valid selector|SyntaxError: Failed to execute 'querySelector/i.test(msg)) return new InputError(`${label} failed: '${selector}' is not a valid CSS selector.`);
  if (a.type === 'executeJavascript') {
    if (CONTEXT_LOST.test(msg)) return new InputError(`${label} failed: the page navigated away while the script ran.`);
    return new InputError(`${label} failed: the script threw: ${msg.split('\n')[0]!.slice(0, 300)}`);
  }
  if (CONTEXT_LOST.test(msg)) return new InputError(`${label} failed: the page navigated away during the action.`);
  return new UpstreamError(`${label} failed in the browser: ${msg.split('\n')[0]!.slice(0, 200)}`, { cause: err });
}
