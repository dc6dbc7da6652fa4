/**
 * Counts the bytes a page downloads, so a render job can be held to the same size cap as a plain
 * fetch (`WEB_MAX_PAGE_BYTES`). Only the final DOM is otherwise checked, and a page can pull in
 * far more than it shows (a script fetching gigabytes, a document that never ends).
 *
 * A CDP session of our own reports `Network.dataReceived` for the page and the frames rendered
 * in its process; workers run in targets of their own, so the session auto-attaches to them
 * (paused until their network is watched too). This works whether or not Chromium goes through
 * the guard proxy, which is bypassed when the operator opens the network.
 *
 * The page's own traffic is read from puppeteer's session of the page, whose Network domain
 * puppeteer has enabled anyway: a second session with Network enabled on the same page makes
 * Chromium report every request twice, which cost ~6 ms of browser and renderer CPU per call
 * even on a one-request page (issue 27, measured on one page alternating both ways).
 */
import type { CDPSession, Page } from 'puppeteer-core';

/** Bytes received by one page so far, and a hook called as they grow. */
export interface ByteMeter {
  readonly bytes: number;
  /** Called after every chunk; set by the job that owns the page. */
  onData?: (total: number) => void;
  /**
   * Every origin the page and its workers may have stored something under since the last
   * `reset`: what a kept context must clear the storage of before its key's next call (see
   * warm-contexts.ts). Cookies are cleared for the whole context anyway, so an origin that only
   * served subresources is left out (issue 27: each origin cleared costs browser CPU, and a
   * real page pulls images, fonts and scripts from many).
   */
  readonly origins: ReadonlySet<string>;
  /** The page's own CDP session (the meter's), for the clearing. */
  readonly session: CDPSession;
  /** Starts counting again from zero, for the next job on the same page. */
  reset(): void;
}

interface AttachedEvent {
  sessionId: string;
  waitingForDebugger: boolean;
}

/** Starts counting on `page` (call before it navigates anywhere that matters). */
export async function attachByteMeter(page: Page): Promise<ByteMeter> {
  const origins = new Set<string>();
  const count = (session: CDPSession): void => {
    session.on('Network.dataReceived', (e: { dataLength: number }) => {
      meter.bytes += e.dataLength;
      meter.onData?.(meter.bytes);
    });
    session.on('Network.requestWillBeSent', (e: { request: { url: string }; type?: string }) => {
      if (e.type && NO_STORAGE_TYPES.has(e.type)) return;
      const origin = originOf(e.request.url);
      if (origin) origins.add(origin);
    });
  };
  /** Counts what `session` reports (with its own Network domain unless `networkOf` already reports it) and what its workers and iframes do. */
  const watch = async (session: CDPSession, networkOf?: CDPSession): Promise<void> => {
    count(networkOf ?? session);
    session.on('Target.attachedToTarget', (e: AttachedEvent) => {
      const child = session.connection()?.session(e.sessionId);
      if (!child) return;
      // The worker waits for us: its first request must already be counted.
      void watch(child)
        .catch(() => undefined)
        .then(() => (e.waitingForDebugger ? child.send('Runtime.runIfWaitingForDebugger') : undefined))
        .catch(() => undefined);
    });
    await Promise.all([
      networkOf ? undefined : session.send('Network.enable'),
      session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
    ]);
  };
  const session = await page.createCDPSession();
  const primary = puppeteerSessionOf(page);
  const meter: { bytes: number; onData?: (total: number) => void; origins: Set<string>; session: CDPSession; reset(): void } = {
    bytes: 0,
    origins,
    session,
    reset() {
      meter.bytes = 0;
      meter.onData = undefined;
      origins.clear();
    },
  };
  await watch(session, primary);
  return meter;
}

/**
 * Puppeteer's own session of the page (Network enabled since the page was made), or undefined
 * when this puppeteer no longer exposes it: the meter then enables Network on a session of its own.
 */
function puppeteerSessionOf(page: Page): CDPSession | undefined {
  const client = (page as unknown as { _client?: () => CDPSession })._client;
  return typeof client === 'function' ? client.call(page) : undefined;
}

/**
 * Request types that never give their own origin a place to run, hence to store anything but
 * cookies: what they load runs in the origin of the document or worker that asked (a script) or
 * does not run at all. Documents (main frame and iframes, also through `<object>`) and anything
 * Chromium reports as another type are kept. Workers must share their document's origin.
 */
const NO_STORAGE_TYPES = new Set(['Image', 'Media', 'Font', 'Stylesheet', 'Script', 'TextTrack', 'XHR', 'Fetch', 'EventSource', 'WebSocket', 'Ping', 'CSPViolationReport', 'Preflight', 'Manifest', 'Prefetch']);

/** The origin of an http(s) URL (the only ones that keep storage), else undefined. */
function originOf(url: string): string | undefined {
  if (!url.startsWith('http')) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
