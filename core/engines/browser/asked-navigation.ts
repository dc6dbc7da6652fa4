/**
 * Whether a page action asked for a navigation whose request the service has not seen yet.
 *
 * A click on a link (or a script setting `location`) makes the renderer ask for a navigation while
 * it handles the action, but Chromium starts the request a few thread hops later, often after the
 * action's own call has returned. An action's settle step that looked only at requests seen so far
 * could then read the old page and answer 200, missing the guard's refusal of where the page went
 * (test/web-scrape-options.test.ts's refused click, 2 of 7 runs alone). The renderer reports the
 * ask (`Page.frameRequestedNavigation`) on the page's DevTools session, and its answer to any later
 * command on that session comes after it, so one round trip settles whether there was one.
 */
import type { CDPSession, Page } from 'puppeteer-core';

/** The session puppeteer drives the page through (its Page domain is already enabled there). */
function sessionOf(page: Page): CDPSession {
  return (page.mainFrame() as unknown as { client: CDPSession }).client;
}

/** Watches `page` for navigations it asks for; `since()` answers whether one came since the last call. */
export function watchAskedNavigations(page: Page): { since(): Promise<boolean>; stop(): void } {
  const session = sessionOf(page);
  let asked = false;
  const onAsked = () => {
    asked = true;
  };
  // A same-document (fragment) navigation starts no request: nothing to wait for.
  const onWithinDocument = () => {
    asked = false;
  };
  session.on('Page.frameRequestedNavigation', onAsked);
  session.on('Page.navigatedWithinDocument', onWithinDocument);
  return {
    async since() {
      await session.send('Runtime.evaluate', { expression: '0' }).catch(() => undefined);
      const was = asked;
      asked = false;
      return was;
    },
    stop() {
      session.off('Page.frameRequestedNavigation', onAsked);
      session.off('Page.navigatedWithinDocument', onWithinDocument);
    },
  };
}
