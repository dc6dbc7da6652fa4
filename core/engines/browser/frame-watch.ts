/**
 * Whether a rendered page has anything waiting for its next frame (issue 27: the DOM read waited
 * for a frame on every page, ~8 ms of a ~33 ms warm call, although most pages queue nothing).
 *
 * A script added to every new document of a pool page, before the page's own scripts run
 * (CDP `Page.addScriptToEvaluateOnNewDocument`, set once when the page is prepared, off any
 * call's critical path), notes what Chromium would deliver in a frame and could change the DOM:
 * animation-frame callbacks not yet run or cancelled, and Intersection/Resize observers watching
 * a target, and a viewport scrolled since its last scroll event (its scroll listeners run in the
 * next frame). The read (read-dom.ts) asks for that note and waits for a frame only when
 * something is pending, or when it cannot get the note at all.
 *
 * The page could overwrite or wrap what this script installs, or find it; none of that can make
 * a read skip a frame the page needs without the page deciding it. The note is asked for by
 * calling the page's `requestAnimationFrame` with a token unknown to the page (random per
 * process): only this script's wrapper answers it. A page that replaced the function (its own
 * polyfill, zone.js wrapping it) answers something else or throws, and the read then waits as
 * before; such a wrapper sees the token, which lets it do nothing it could not do without it. A
 * page that imitated the answer on purpose, or took an unwrapped function from a frame of its
 * own, only changes what its own content looks like when read, which a page decides anyway; no
 * other key's call runs in its document. Nothing here runs in the service: the answer is two
 * numbers and a flag, serialised by Chromium. (A page's own wrapper handed the token passes it on
 * as a callback, so the page sees one TypeError in a frame callback of its own; nothing else.)
 * The wrappers are Proxies of the native functions (their name, length and `toString` stay
 * native-looking), so a page testing its natives for tampering sees as little as possible.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';

/** The token the read passes to the page's `requestAnimationFrame` to get the note. */
export const FRAME_WATCH_TOKEN = `frame-watch-${randomBytes(12).toString('hex')}`;

/** What the script answers: what the page's next frame would run. */
export interface FrameNote {
  /** Animation-frame callbacks requested and neither run nor cancelled. */
  callbacks: number;
  /** Intersection/Resize observers given a target and not disconnected since. */
  observers: number;
  /** The viewport moved since its last scroll event was dispatched. */
  scrolled: boolean;
}

// Plain JavaScript run in the page: no TypeScript helpers (tsx's __name) exist there. Exported for
// bench/scrape-reset.ts, which takes it off a page and puts it back.
export const FRAME_WATCH_SCRIPT = `(() => {
  const token = ${JSON.stringify(FRAME_WATCH_TOKEN)};
  const pending = new Set();
  // Observers with a target: counted once each; disconnect() uncounts. One whose targets were
  // all unobserved one by one stays counted, and so does one the page dropped without a
  // disconnect: either only costs a frame's wait.
  const watching = new WeakSet();
  let observers = 0;
  // Where the viewport was when its last scroll event was dispatched: a document scrolled since
  // (by a script at load, a fragment, a scroll action) has its scroll listeners run in the next
  // frame. Captured on the window, which every scroll event's path starts with; registered before
  // any of the page's listeners, so none can stop it first.
  let seenX = 0;
  let seenY = 0;
  addEventListener('scroll', (event) => {
    if (event.target === document) { seenX = scrollX; seenY = scrollY; }
  }, { capture: true, passive: true });
  const wrap = (owner, name, apply) => {
    const d = owner && Object.getOwnPropertyDescriptor(owner, name);
    if (d && typeof d.value === 'function') Object.defineProperty(owner, name, { ...d, value: new Proxy(d.value, { apply }) });
  };
  const onWindow = (name) => (Object.getOwnPropertyDescriptor(window, name) ? window : Window.prototype);
  wrap(onWindow('requestAnimationFrame'), 'requestAnimationFrame', (native, self, args) => {
    const cb = args[0];
    if (cb === token) return { callbacks: pending.size, observers, scrolled: scrollX !== seenX || scrollY !== seenY };
    if (typeof cb !== 'function') return Reflect.apply(native, self, args);
    let id;
    id = Reflect.apply(native, self, [function (time) { pending.delete(id); return Reflect.apply(cb, this, [time]); }]);
    pending.add(id);
    return id;
  });
  wrap(onWindow('cancelAnimationFrame'), 'cancelAnimationFrame', (native, self, args) => {
    pending.delete(args[0]);
    return Reflect.apply(native, self, args);
  });
  for (const name of ['IntersectionObserver', 'ResizeObserver']) {
    const proto = window[name] && window[name].prototype;
    wrap(proto, 'observe', (native, self, args) => {
      const out = Reflect.apply(native, self, args);
      if (!watching.has(self)) { watching.add(self); observers++; }
      return out;
    });
    wrap(proto, 'disconnect', (native, self, args) => {
      if (watching.has(self)) { watching.delete(self); observers--; }
      return Reflect.apply(native, self, args);
    });
  }
})();`;

/** Installs the script on `page` for every document it loads from now on (and its frames'). */
export async function installFrameWatch(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(FRAME_WATCH_SCRIPT);
}
