/** Reading a rendered page back from Chromium in one round trip. */
import type { Page } from 'puppeteer-core';
import { FRAME_WATCH_TOKEN, type FrameNote } from './frame-watch.js';

/** The document as the caller gets it. */
export interface Dom {
  /** Doctype and serialised DOM after scripts ran. */
  html: string;
  title: string;
  /** The URL of the document read (Chromium's error page is `chrome-error://…`). */
  href: string;
}

/** How long the page may take, in ms, to finish loading and to leave by a quick refresh. */
interface Waits {
  load: number;
  refresh: number;
  /**
   * Let the page run what it queued at load first (its timers due now, and its next frame when
   * something waits for one, see frame-watch.ts): what those start, a request or a DOM change,
   * is then seen by this read or by the caller.
   */
  frame?: boolean;
}

/**
 * The DOM, title and URL (page.content() and page.title() would be two round trips). With
 * `waits`, a document still loading is read once loaded, and one with a quick meta refresh (a
 * `<meta http-equiv="refresh">` with a URL due within a second: a redirect in all but name) is
 * held until the refresh replaces it. The replacement destroys this evaluation's context, so the
 * call rejects and the caller reads the next document (readSettledDom). Waiting inside the page,
 * rather than for a navigation event afterwards, cannot miss a navigation that starts or ends
 * between two round trips.
 */
export function readDom(page: Page, waits: Waits = { load: 0, refresh: 0 }): Promise<Dom> {
  return page.evaluate(async ({ load, refresh, frame, token }) => {
    // No named helpers in here: a transpiler's (tsx's __name) would not exist in the page.
    if (document.readyState !== 'complete' && load > 0) {
      await new Promise<void>((done) => {
        setTimeout(done, load);
        addEventListener('load', () => done(), { once: true });
      });
    }
    if (frame) {
      // Timers due now run first (a zero timer set at load), and may ask for a frame themselves.
      await new Promise((done) => setTimeout(done, 0));
      // The page's note of what its next frame would run (frame-watch.ts). Anything but the
      // note's own answer (no watch script in this document, a page that replaced the function)
      // counts as "something is pending": the read then waits as it always did.
      let note: unknown;
      try {
        note = (requestAnimationFrame as unknown as (t: string) => unknown)(token);
      } catch {
        note = undefined;
      }
      const n: Partial<Record<keyof FrameNote, unknown>> = typeof note === 'object' && note !== null ? note : {};
      if (!(n.callbacks === 0 && n.observers === 0 && n.scrolled === false)) {
        // Up to the end of that frame. A new observation's first entry is computed in the frame
        // after the page's animation-frame callbacks, resize observers and intersection
        // computations, and delivered in one task with the page's own intersection entries:
        // the task after it sees what all of those did (waking in an animation-frame callback
        // instead came before the frame's observers). A hidden page gets no frames: the timer
        // bounds the wait. 200 ms, not the 50 it was: a visible pool page always gets its frame,
        // and on a loaded machine (a full test run, load 7 on two cores) that frame can come
        // later than 50 ms; a read that went ahead then misses what the frame starts (the likely
        // cause of one web-browser-reuse failure, which did not reproduce alone).
        await new Promise<void>((done) => {
          setTimeout(done, 200);
          const root = document.documentElement;
          if (typeof IntersectionObserver !== 'function' || !root) return void requestAnimationFrame(() => setTimeout(done, 0));
          const seen = new IntersectionObserver(() => {
            seen.disconnect();
            setTimeout(done, 0);
          });
          seen.observe(root);
        });
      }
    }
    const dt = document.doctype;
    const doctype = dt ? `<!DOCTYPE ${dt.name}${dt.publicId ? ` PUBLIC "${dt.publicId}"` : ''}${dt.systemId ? ` "${dt.systemId}"` : ''}>` : '';
    // A refresh due within a second to another document: held until that document replaces
    // this one (a refresh to a fragment of this one navigates within it, so no wait).
    const content = document.querySelector('meta[http-equiv="refresh" i]')?.getAttribute('content') ?? '';
    const refreshTo = /^\s*(\d+)[^;,]*[;,]\s*(?:url\s*=\s*)?(['"]?)(\S.*?)\2\s*$/i.exec(content);
    let leaves = false;
    try {
      const to = refreshTo && Number(refreshTo[1]) <= 1 ? new URL(refreshTo[3]!, location.href) : undefined;
      leaves = !!to && !(to.hash && to.href.split('#')[0] === location.href.split('#')[0]);
    } catch {
      // Not a URL: Chromium does not navigate either.
    }
    if (leaves && refresh > 0) await new Promise((done) => setTimeout(done, refresh));
    return { html: doctype + document.documentElement.outerHTML, title: document.title, href: location.href };
  }, { ...waits, token: FRAME_WATCH_TOKEN });
}

/** Puppeteer's words for "the document went away while it was being read" (a navigation). */
const CONTEXT_LOST = /Execution context was destroyed|Cannot find context with specified id/;
// Documents read at most per job: the page, its refresh, then a script or two moving on is
// already unusual; past that the job fails rather than chase the page.
const MAX_READS = 4;

/**
 * Reads the page as the caller will get it. A quick meta refresh is followed once, so the answer
 * does not depend on whether its timer fired before the read (a refresh to a refused address is
 * then always the guard's 400). Any navigation that replaces the document while it is being read
 * (that refresh, or a script's `location = …`) is waited out and the new document read once
 * loaded: under load the refresh timer fires late, and reading through it used to fail the job
 * with "Execution context was destroyed". `replaced` runs before each re-read (checks where the
 * page went, lets its requests settle) and may throw to end the job. Waits stop at `deadline`.
 */
export async function readSettledDom(
  page: Page,
  opts: { deadline: number; replaced: () => Promise<void>; frame?: boolean },
): Promise<{ dom: Dom; navigated: boolean }> {
  let navigated = false;
  for (let read = 1; ; read++) {
    const left = Math.max(0, opts.deadline - Date.now());
    try {
      // A page whose refresh never replaced it by the deadline is read as it stands.
      return { dom: await readDom(page, { load: left, refresh: navigated ? 0 : left, frame: opts.frame }), navigated };
    } catch (err) {
      if (!CONTEXT_LOST.test(String(err)) || read >= MAX_READS) throw err;
    }
    navigated = true;
    await opts.replaced();
  }
}
