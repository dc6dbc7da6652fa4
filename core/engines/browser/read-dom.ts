/** Reading a rendered page back from Chromium in one round trip. */
import type { Page } from 'puppeteer-core';

/** The document as the caller gets it. */
export interface Dom {
  /** Doctype and serialised DOM after scripts ran. */
  html: string;
  title: string;
  /** The URL of the document read (Chromium's error page is `chrome-error://…`). */
  href: string;
  /**
   * The page asks, by `<meta http-equiv="refresh">` with a URL, to go elsewhere within a second:
   * a redirect in all but name, which the renderer follows rather than racing its timer.
   */
  quickRefresh: boolean;
}

/** The DOM, title, URL and any quick meta refresh (page.content() and page.title() would be two round trips). */
export function readDom(page: Page): Promise<Dom> {
  return page.evaluate(() => {
    const dt = document.doctype;
    const doctype = dt ? `<!DOCTYPE ${dt.name}${dt.publicId ? ` PUBLIC "${dt.publicId}"` : ''}${dt.systemId ? ` "${dt.systemId}"` : ''}>` : '';
    const refresh = document.querySelector('meta[http-equiv="refresh" i]')?.getAttribute('content') ?? '';
    const delay = /^\s*(\d+)[^;,]*[;,]\s*\S/.exec(refresh)?.[1];
    return { html: doctype + document.documentElement.outerHTML, title: document.title, href: location.href, quickRefresh: delay !== undefined && Number(delay) <= 1 };
  });
}
