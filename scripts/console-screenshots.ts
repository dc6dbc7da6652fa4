/**
 * `npm run console:screenshots`: the README's console pictures, from a seeded instance. Starts the
 * service on a fresh PostgreSQL database (CONSOLE_SHOTS_DATABASE_URL, default the local test
 * server), creates a few keys, seeds 30 days of usage, serves a local article to scrape, then
 * drives Debian's Chromium through the overview (admin) and the playground (key holder) and
 * writes docs/console/overview.png and docs/console/playground.png.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import puppeteer, { type Page } from 'puppeteer-core';
import { startService } from '../server/start.js';
import { seedUsage } from '../bench/console-seed.js';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'docs', 'console');
const ADMIN_URL = process.env.CONSOLE_SHOTS_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TOKEN = randomBytes(16).toString('hex');

const ARTICLE = `<!doctype html><html lang="en"><head><title>Release notes 4.2</title></head><body>
<article><h1>Release notes 4.2</h1><p>This release makes <strong>crawling</strong> faster and adds a console.</p>
<h2>Highlights</h2><ul><li>Crawls follow sitemaps</li><li>Screenshots of whole pages</li><li>Per-key policies in the browser</li></ul>
<h2>Upgrade</h2><p>Run the migrations, then restart each instance. See <a href="https://example.org/upgrade">the upgrade guide</a>.</p>
<table><tr><th>Metric</th><th>4.1</th><th>4.2</th></tr><tr><td>Pages / s</td><td>120</td><td>185</td></tr></table></article></body></html>`;

const dbName = `cia_console_shots_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const dbUrl = new URL(ADMIN_URL);
dbUrl.pathname = `/${dbName}`;
const dataDir = await mkdtemp(join(tmpdir(), 'cia-console-shots-'));
const profile = await mkdtemp(join(tmpdir(), 'cia-console-shots-chromium-'));
const site = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(ARTICLE);
});
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/release-notes`;
const server = await startService({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: dbUrl.toString(), ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'error', ALLOW_PRIVATE_NETWORK: 'true', DOCUMENTS_PREWARM: 'false' });
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--hide-scrollbars'],
  userDataDir: profile,
  pipe: true,
  defaultViewport: { width: 1360, height: 900 },
});

async function call(path: string, body: unknown): Promise<any> {
  const res = await fetch(server.url + path, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}

async function signIn(page: Page, role: 'admin' | 'key', secret: string): Promise<void> {
  await page.goto(`${server.url}/console`);
  await page.waitForSelector('#secret');
  await page.click(`input[name=role][value=${role}]`);
  await page.type('#secret', secret);
  await page.click('button[type=submit]');
  await page.waitForSelector('nav');
}

try {
  const names = ['Acme automations', 'Newsroom crawler', 'Support agent', 'Data team', 'Zapier flows', 'Staging', 'Partner: Contoso', 'Research notebook'];
  const keyIds: string[] = [];
  for (const name of names) keyIds.push((await call('/admin/keys', { name, credits: 50_000, rateLimitPerMinute: 600 })).id);
  await seedUsage(dbUrl.toString(), { n: 40_000, days: 30, keyIds });
  const holder = await call('/admin/keys', { name: 'Docs demo', credits: 1000 });
  await mkdir(OUT, { recursive: true });

  const adminCtx = await browser.createBrowserContext();
  const a = await adminCtx.newPage();
  await signIn(a, 'admin', TOKEN);
  await a.waitForSelector('figure.chart canvas');
  await a.select('#groupby', 'capability');
  await new Promise((r) => setTimeout(r, 800));
  await a.screenshot({ path: join(OUT, 'overview.png'), fullPage: true });

  const keyCtx = await browser.createBrowserContext();
  const k = await keyCtx.newPage();
  await signIn(k, 'key', holder.key);
  await k.goto(`${server.url}/console/app/playground`);
  await k.waitForSelector('#pg-target option[value="capability:scrape_page"]');
  await k.select('#pg-target', 'capability:scrape_page');
  await k.waitForSelector('#f-input-url');
  await k.type('#f-input-url', siteUrl);
  await k.click('#f-input-renderJs');
  await k.click('#f-input-renderJs');
  await k.click('form[aria-label=Input] button[type=submit]');
  await k.waitForSelector('.rendered .markdown h1', { timeout: 30_000 });
  await k.screenshot({ path: join(OUT, 'playground.png'), fullPage: true });
  console.log(`wrote ${join(OUT, 'overview.png')} and ${join(OUT, 'playground.png')}`);
} finally {
  await browser.close();
  await server.stop();
  site.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(profile, { recursive: true, force: true });
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
}
