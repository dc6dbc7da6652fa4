/**
 * seo_a: the real client against the loopback fake of its contract (contracts §2), through the
 * executor: the reviews task flow (post, poll with backoff, deadline, hang-up), the reviews cost
 * on what was returned, keyword ideas, its own faults, and the fault suite.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pluginHarness, providerFaultSuite, withFake } from '../../core/testing/index.js';
import plugin from './index.js';
import { startFake } from './fake.js';


const t = withFake(plugin, startFake);

/** `<status> <message>` a call ends with ('200' on success). */
const outcome = (p: Promise<unknown>) => p.then(() => '200', (e: { status?: number; message: string }) => `${e.status ?? 0} ${e.message}`);
const lastPost = () => t.fake.requests.filter((r) => r.method === 'POST').at(-1)!;

test('reviews: task posted with Basic auth, polled until ready, spec defaults applied by the capability', async () => {
  t.fake.pendingPolls = 2;
  try {
    const r = await t.h.capability('get_engine_reviews', { keyword: 'hedonism wines' });
    const post = lastPost();
    assert.equal(post.path, '/v3/business_data/google/reviews/task_post');
    assert.equal(post.headers.authorization, `Basic ${Buffer.from(`${t.fake.env.SEO_A_LOGIN}:${t.fake.apiKey}`).toString('base64')}`);
    assert.deepEqual(post.body, [{ keyword: 'hedonism wines', location_name: 'London,England,United Kingdom', language_code: 'en', depth: 10, sort_by: 'relevant' }]);
    const polls = t.fake.requests.filter((q) => q.path.includes('/task_get/'));
    assert.ok(polls.length >= 3, 'two answers "Task In Queue." then the result');
    assert.equal(r.data.items.length, 10);
    assert.equal(r.data.items_count, 10);
    assert.equal(r.data.location_code, 1006886);
    assert.equal(r.data.rating.value, 4.7);
    assert.deepEqual(Object.keys(r.data.items[0]).filter((k) => ['review_text', 'owner_answer', 'images', 'local_guide', 'rating', 'review_id'].includes(k)).sort(), ['images', 'local_guide', 'owner_answer', 'rating', 'review_id', 'review_text']);
    assert.deepEqual({ reserved: r.reserved, credits: r.credits }, { reserved: 50, credits: 50 });
  } finally {
    t.fake.reset();
  }
});

test('reviews cost 50 per started 10 returned: reserve for the request, settle on the count (0, 9, 10, 11, 4490)', async () => {
  const cases: [asked: number, available: number, reserved: number, credits: number][] = [
    [10, 0, 50, 0],
    [9, 4490, 50, 50],
    [10, 4490, 50, 50],
    [11, 4490, 100, 100],
    [30, 11, 150, 100],
    [4490, 4490, 22450, 22450],
  ];
  try {
    for (const [asked, available, reserved, credits] of cases) {
      t.fake.available = available;
      const r = await t.h.capability('get_engine_reviews', { placeId: 'ChIJabc', reviews: asked, sortBy: 'newest', language: 'pt-BR', location: 'United Kingdom' });
      assert.equal(r.data.items.length, Math.min(asked, available), `${asked}/${available}`);
      assert.deepEqual({ reserved: r.reserved, credits: r.credits }, { reserved, credits }, `${asked} asked, ${available} available`);
    }
    assert.deepEqual(lastPost().body, [{ place_id: 'ChIJabc', location_name: 'United Kingdom', language_code: 'pt', depth: 4490, sort_by: 'newest' }]);
  } finally {
    t.fake.reset();
  }
});

test('reviews input: one of keyword, cid or placeId; a location the provider does not know is the caller\'s 400', async () => {
  assert.equal(await outcome(t.h.capability('get_engine_reviews', { reviews: 5 })), '400 Either keyword, cid, or placeId must be provided');
  assert.equal(await outcome(t.h.capability('get_engine_reviews', { cid: '1', reviews: 4491 })), "400 Invalid input: 'reviews' expected integer to be less or equal to 4490.");
  assert.equal(await outcome(t.h.capability('get_engine_reviews', { cid: '1', location: 'Atlantis' })), "400 seo_a rejected the request: Invalid Field: 'location_name'.");
  const byCode = await t.h.capability('get_engine_reviews', { cid: '42', location: '2840' });
  assert.equal(lastPost().body[0].location_code, 2840);
  assert.equal(byCode.data.cid, '42');
});

providerFaultSuite({ plugin, fake: startFake, capability: 'get_engine_reviews', input: { keyword: 'x' } });

test('its own faults: 50000 in a 200 envelope is a 502, task errors are the spec\'s 500s', async () => {
  t.fake.failWith(200, { status_code: 50000, status_message: 'Internal Error.', tasks: [] });
  assert.equal(await outcome(t.h.capability('get_engine_reviews', { keyword: 'x' })), '502 Failed to retrieve data from seo_a service.');
  t.fake.reset();
  for (const [task, expected] of [['task_error', '500 Failed to fetch engine reviews: Internal SE Server Error.'], ['no_results', '500 Failed to fetch engine reviews: No Search Results.']] as const) {
    t.fake.task = task;
    assert.equal(await outcome(t.h.capability('get_engine_reviews', { keyword: 'x' })), expected, task);
  }
  t.fake.reset();
});

test('a task never ready is abandoned at the deadline (502) and polling stops', async () => {
  const short = await pluginHarness(plugin, { env: { ...t.fake.env, SEO_A_TASK_TIMEOUT_MS: '1000' } });
  t.fake.task = 'never_ready';
  try {
    assert.equal(await outcome(short.capability('get_engine_reviews', { keyword: 'slow' })), '502 The seo_a service did not finish the task within 1 s.');
    const polled = t.fake.requests.length;
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(t.fake.requests.length, polled, 'no poll after the deadline');
  } finally {
    t.fake.reset();
    await short.close();
  }
});

test('a client hang-up abandons the task: the call ends and no poll follows', async () => {
  // A long first wait, so the hang-up lands while the client waits to poll (deterministically).
  const patient = await pluginHarness(plugin, { env: { ...t.fake.env, SEO_A_POLL_INTERVAL_MS: '2000' } });
  const ctl = new AbortController();
  try {
    const posted = t.fake.requests.length;
    const call = outcome(patient.capability('get_engine_reviews', { keyword: 'hang up' }, { signal: ctl.signal }));
    // The fake answers a request in the turn it logs it.
    while (t.fake.requests.length === posted) await new Promise((r) => setTimeout(r, 5));
    const seen = t.fake.requests.length;
    ctl.abort(new Error('client disconnected'));
    // The executor reports the hang-up itself (the HTTP lane records it as 499); the call is not served.
    assert.notEqual(await call, '200');
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(t.fake.requests.length, seen, 'no poll after the hang-up');
  } finally {
    await patient.close();
  }
});

test('keyword ideas: live call, mapped items, charged per started 100 ideas returned', async () => {
  const r = await t.h.capability('keyword_ideas', { keywords: ['Espresso Machine'], limit: 150 });
  assert.deepEqual(lastPost().body, [{ keywords: ['espresso machine'], location_name: 'United States', limit: 150 }]);
  assert.equal(lastPost().path, '/v3/dataforseo_labs/google/keyword_ideas/live');
  assert.equal(r.data.items.length, 150);
  assert.deepEqual(r.data.items[0], { keyword: 'espresso machine idea 1', searchVolume: 1000, competition: 0.5, competitionLevel: 'MEDIUM', cpc: 1.25, lowTopOfPageBid: 0.5, highTopOfPageBid: 2.5, monthlySearches: [{ year: 2024, month: 7, searchVolume: 900 }, { year: 2024, month: 6, searchVolume: 1100 }], keywordDifficulty: 40, searchIntent: 'commercial' });
  assert.deepEqual({ total: r.data.total, offset: r.data.offset, locationCode: r.data.locationCode }, { total: 250, offset: 0, locationCode: 2840 });
  assert.deepEqual({ reserved: r.reserved, credits: r.credits }, { reserved: 40, credits: 40 });
  const last = await t.h.capability('keyword_ideas', { keywords: ['espresso'], offset: 200, limit: 100, language: 'de', location: 'Germany' });
  assert.equal(last.data.items.length, 50);
  assert.deepEqual({ reserved: last.reserved, credits: last.credits }, { reserved: 20, credits: 20 });
  const past = await t.h.capability('keyword_ideas', { keywords: ['espresso'], offset: 300 });
  assert.deepEqual({ items: past.data.items.length, credits: past.credits }, { items: 0, credits: 0 });
  assert.equal(await outcome(t.h.capability('keyword_ideas', { keywords: [] })), "400 'keywords' must be a list of 1 to 200 non-empty keywords.");
  const direct = await t.h.endpoint('labs_engine_keyword_ideas', { keywords: ['tea'], location_code: 2840, limit: 5 });
  assert.equal(direct.data.items_count, 5);
  assert.equal(direct.credits, 20);
});
