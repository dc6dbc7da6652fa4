/**
 * Driving the console in Debian's Chromium (puppeteer-core, no browser download): one browser per
 * test file, a fresh context (own cookies) per user, every dialog, console error and page error
 * recorded, and axe-core run in the page.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import axe from 'axe-core';

/** A launched Chromium and its profile folder. */
export interface TestBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/** Launches headless Chromium as the service's pool does (flags that work as root, no network chatter). */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'cia-console-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--hide-scrollbars'],
    userDataDir: profile,
    pipe: true,
    defaultViewport: { width: 1280, height: 900 },
  });
  return {
    browser,
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** A page in its own browser context, with what it did that it must not. */
export interface WatchedPage {
  page: Page;
  dialogs: string[];
  errors: string[];
  close(): Promise<void>;
}

/** Opens a page in a fresh context and records dialogs (dismissed), console errors and uncaught errors. */
export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${m.text()} (${m.location().url ?? page.url()})`);
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { page, dialogs, errors, close: () => context.close() };
}

/** Runs axe-core in the page; fails on any serious or critical violation. */
export async function assertAccessible(page: Page, where: string): Promise<void> {
  // Injected through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const r = await (globalThis as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n: any) => n.html) }));
  });
  const bad = violations.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `axe-core on ${where}: ${JSON.stringify(bad, null, 1)}`);
}

/** The text of an element once it matches `want`. */
export async function waitText(page: Page, selector: string, want: string | RegExp, timeout = 15_000): Promise<string> {
  const pattern = typeof want === 'string' ? `^${want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$` : want.source;
  await page.waitForFunction(
    (sel, pat) => {
      const el = document.querySelector(sel);
      return !!el && new RegExp(pat).test((el.textContent ?? '').trim());
    },
    { timeout },
    selector,
    pattern,
  );
  return page.$eval(selector, (el) => (el.textContent ?? '').trim());
}
