/**
 * The console's Jobs page in a real browser (issues 25 and 26): an administrator watches another
 * key's running job move and cancels it (the API then says `cancelled`, charged for the pages done
 * only); a key holder submits a job from the page, sees its result, and sees only their own jobs;
 * strings in job data are shown as text. axe-core on each view.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { jobsConfig } from './fixtures/job-plugins.js';
import { waitJob } from './helpers/jobs.js';
import { assertAccessible, launchBrowser, waitText, watchedPage, type TestBrowser, type WatchedPage } from './helpers/console-browser.js';

const HOSTILE = '<img src=x onerror=alert(1)>';

describe('console jobs page (browser)', () => {
  let s: TestServer;
  let tb: TestBrowser;
  const pages: WatchedPage[] = [];

  const signIn = async (role: 'admin' | 'key', secret: string, home: string) => {
    const w = await watchedPage(tb.browser);
    pages.push(w);
    await w.page.goto(`${s.url}/console`);
    await w.page.waitForSelector('#secret');
    await w.page.click(`input[name=role][value=${role}]`);
    await w.page.type('#secret', secret);
    await w.page.click('button[type=submit]');
    await waitText(w.page, 'main h1', home);
    return w;
  };
  /** The done count of a job's row ("N done of T"), once it is at least `min`. */
  const rowProgress = async (w: WatchedPage, id: string, min: number, label: string) => {
    const sel = `tr[data-job="${id}"] [data-figure=progress]`;
    await w.page.waitForFunction((sel, min) => {
      const m = /^(\d+) done/.exec(document.querySelector(sel)?.textContent ?? '');
      return !!m && Number(m[1]) >= min;
    }, { timeout: 30_000 }, sel, min).catch((e) => assert.fail(`${label}: ${e}`));
    return Number(/^(\d+)/.exec(await w.page.$eval(sel, (el) => el.textContent ?? ''))![1]);
  };

  before(async () => {
    // One page at a time per job, so a slow job's progress moves in steps the page can show.
    s = await startServer({ serviceConfig: jobsConfig(), env: { JOB_ITEM_CONCURRENCY: '1' } });
    tb = await launchBrowser();
  });
  after(async () => {
    for (const p of pages) await p.close().catch(() => {});
    await tb?.close();
    await s?.close();
  });

  it('admin: sees a running job of another key move, cancels it, and the API says cancelled with the done pages charged', async () => {
    const { key } = await s.createKey({ credits: 1000, name: 'Slow jobs' });
    const sub = await s.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'test_pages', input: { count: 20, delayMs: 1200 } } });
    assert.equal(sub.status, 202, sub.text);
    const id = sub.json.data.id as string;

    const w = await signIn('admin', s.adminToken, 'Overview');
    const { page } = w;
    await page.click('nav a[href="/console/app/jobs"]');
    await waitText(page, 'main h1', 'Jobs');
    const first = await rowProgress(w, id, 1, 'first page done');
    assert.match(await page.$eval(`tr[data-job="${id}"] [data-status]`, (el) => el.textContent ?? ''), /^running$/);
    // The bar has the job's total and its value follows the pages done.
    assert.equal(await page.$eval(`tr[data-job="${id}"] progress`, (el) => (el as HTMLProgressElement).max), 20);
    // Live refresh: without touching the page, the count moves on.
    const later = await rowProgress(w, id, first + 1, 'progress moves');
    assert.ok(later > first);
    await assertAccessible(page, 'jobs list (admin)');

    await page.click(`tr[data-job="${id}"] button[aria-label="Cancel job ${id}"]`);
    await waitText(page, `tr[data-job="${id}"] [data-status]`, 'cancelled');
    assert.equal(await page.$(`tr[data-job="${id}"] button`), null, 'no Cancel on a finished job');

    const job = await waitJob(s, key, id);
    assert.equal(job.status, 'cancelled');
    assert.ok(job.progress.done >= later && job.progress.done < 20, `done ${job.progress.done}`);
    assert.equal(job.creditsCharged, job.progress.done * 10);
    const bal = (await s.call('GET', '/api/v2/balance', { key })).json.data;
    assert.equal(bal.credits, 1000 - job.creditsCharged);
    assert.equal(bal.reserved, 0);

    // The detail view says the same; the list row's credits match.
    await waitText(page, `tr[data-job="${id}"] [data-credits]`, String(job.creditsCharged));
    await page.click(`tr[data-job="${id}"] a`);
    await waitText(page, '[data-figure=job-status]', 'cancelled');
    await waitText(page, '[data-figure=job-credits]', String(job.creditsCharged));
    await page.waitForSelector('.job-results li');
    await assertAccessible(page, 'job detail (admin)');
    assert.deepEqual(w.dialogs, []);
    assert.deepEqual(w.errors, []);
  });

  it('key holder: submits a job from the page, its hostile data shows as text, and only their own jobs are listed', async () => {
    const other = await s.createKey({ credits: 100 });
    const theirs = await s.call('POST', '/api/v2/jobs', { key: other.key, body: { type: 'capability', id: 'test_echo', input: { text: 'not yours' } } });
    assert.equal(theirs.status, 202);
    const { key } = await s.createKey({ credits: 100, name: HOSTILE });

    const w = await signIn('key', key, 'Balance & usage');
    const { page } = w;
    await page.goto(`${s.url}/console/app/jobs`);
    await waitText(page, 'main h1', 'Jobs');
    await page.waitForSelector('#js-target option[value="capability:test_echo"]');
    await page.select('#js-target', 'capability:test_echo');
    await page.$eval('#js-input', (el) => { (el as HTMLTextAreaElement).value = ''; });
    await page.type('#js-input', JSON.stringify({ text: HOSTILE }));
    await assertAccessible(page, 'jobs page (key holder)');
    await page.click('form[aria-label="Submit a job"] button[type=submit]');
    await waitText(page, '[data-figure=job-status]', 'completed');
    await waitText(page, '[data-figure=job-credits]', '10');
    const id = /id=(job_[^&]+)/.exec(page.url())![1]!;
    const result = await page.$eval('.result', (el) => el.textContent ?? '');
    assert.ok(result.includes(HOSTILE), result);
    assert.equal(await page.$('main img, main script'), null, 'job data is text, not markup');
    await assertAccessible(page, 'job detail (key holder)');

    // Through the API the job is the key's, completed, charged once.
    const api = await s.call('GET', `/api/v2/jobs/${id}`, { key });
    assert.deepEqual([api.json.data.status, api.json.data.creditsCharged, api.json.data.data.echo], ['completed', 10, HOSTILE]);
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 90);

    // The list shows this key's jobs and never another key's; the key holder cancels a slow one there.
    const slow = await s.call('POST', '/api/v2/jobs', { key, body: { type: 'capability', id: 'test_pages', input: { count: 5, delayMs: 1500 } } });
    assert.equal(slow.status, 202);
    const slowId = slow.json.data.id as string;
    await page.click('a[href="/console/app/jobs"]');
    await page.waitForSelector(`tr[data-job="${slowId}"] button`);
    const ids = await page.$$eval('tr[data-job]', (rows) => rows.map((r) => r.getAttribute('data-job')));
    assert.deepEqual(ids.sort(), [id, slowId].sort());
    await page.click(`tr[data-job="${slowId}"] button[aria-label="Cancel job ${slowId}"]`);
    await waitText(page, `tr[data-job="${slowId}"] [data-status]`, 'cancelled');
    const cancelled = await waitJob(s, key, slowId);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.creditsCharged, cancelled.progress.done * 10);
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 90 - cancelled.creditsCharged);
    // Another key's job by its id: the API's 404 text, nothing of the job.
    await page.goto(`${s.url}/console/app/jobs?id=${theirs.json.data.id}`);
    await page.waitForSelector('[role=alert]');
    assert.equal(await page.$('[data-figure=job-status]'), null);
    assert.doesNotMatch(await page.$eval('main', (el) => el.textContent ?? ''), /not yours/);

    // From the playground: the same target and input run as a job, and the page follows it.
    await page.goto(`${s.url}/console/app/playground`);
    await page.waitForSelector('#pg-target option[value="capability:test_echo"]');
    await page.select('#pg-target', 'capability:test_echo');
    await page.waitForSelector('#f-input-text');
    await page.type('#f-input-text', 'from the playground');
    const [asJob] = await page.$$('xpath/.//button[normalize-space()="Run as a job"]');
    await asJob!.click();
    await waitText(page, '[data-figure=job-status]', 'completed');
    const pgId = /id=(job_[^&]+)/.exec(page.url())![1]!;
    assert.equal((await s.call('GET', `/api/v2/jobs/${pgId}`, { key })).json.data.data.echo, 'from the playground');

    // The administrator sees the same hostile data as text too.
    const admin = await signIn('admin', s.adminToken, 'Overview');
    await admin.page.goto(`${s.url}/console/app/jobs?id=${id}`);
    await waitText(admin.page, '[data-figure=job-status]', 'completed');
    assert.ok((await admin.page.$eval('.result', (el) => el.textContent ?? '')).includes(HOSTILE));
    assert.equal(await admin.page.$('main img, main script'), null);
    for (const x of [w, admin]) {
      assert.deepEqual(x.dialogs, []);
      // The browser logs the 404 asked for above; nothing else.
      assert.deepEqual(x.errors.filter((e) => !e.includes(`404 (Not Found) (${s.url}/console/api/api/v2/jobs/${theirs.json.data.id}?`)), []);
    }
  });
});
