/**
 * seo_a: the real client against the loopback fake of its contract (contracts §2), through the
 * executor: the reviews task flow (post, poll with backoff, deadline, hang-up), the reviews cost
 * on what was returned, keyword ideas, its own faults, and the fault suite. Not repeated here:
 * what test/reviews.test.ts proves through the server (every spec field of a review, the spec 400
 * without keyword, cid or placeId; an unknown location_name; task errors as 500s) and
 * test/answer.test.ts (the ideas endpoint, a last page shorter than the limit, the 400 without keywords).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, exactly, like, outcome, providerFaultSuite, staysQuiet, withFake } from '../../core/testing/index.js';
import plugin from './index.js';
import { startFake } from './fake.js';

const t = withFake(plugin, startFake);
const reviews = (input: object, options?: { signal: AbortSignal }, h = t.h) => h.capability('get_engine_reviews', input, options);
const ideas = (input: object) => t.h.capability('keyword_ideas', input);

providerFaultSuite({
  plugin, fake: startFake, capability: 'get_engine_reviews',
  also: {
    '50000 in a 200 envelope': [(f) => f.failWith(200, { status_code: 50000, status_message: 'Internal Error.', tasks: [] }), '502 Failed to retrieve data from seo_a service.'],
  },
});

test('reviews: task posted (the fake takes only Basic auth), polled until ready, spec defaults applied by the capability', async () => {
  t.fake.pendingPolls = 2;
  const r = await reviews({ keyword: 'hedonism wines' });
  like(t.fake.last('POST'), { path: '/v3/business_data/google/reviews/task_post', body: exactly([{ keyword: 'hedonism wines', location_name: 'London,England,United Kingdom', language_code: 'en', depth: 10, sort_by: 'relevant' }]) });
  assert.ok(t.fake.sent('GET /v3/business_data/google/reviews/task_get/:id').length >= 3, 'two answers "Task In Queue." then the result');
  like(r, { data: { items: { length: 10 }, items_count: 10, location_code: 1006886, rating: { value: 4.7 } }, reserved: 50, credits: 50 });
});

test('reviews cost 50 per started 10 returned: reserve for the request, settle on the count (0, 9, 10, 11, 4490)', async () => {
  for (const [asked, available, reserved, credits] of [[10, 0, 50, 0], [9, 4490, 50, 50], [10, 4490, 50, 50], [11, 4490, 100, 100], [30, 11, 150, 100], [4490, 4490, 22450, 22450]]) {
    t.fake.available = available!;
    like(await reviews({ placeId: 'ChIJabc', reviews: asked, sortBy: 'newest', language: 'pt-BR', location: 'United Kingdom' }), { data: { items: { length: Math.min(asked!, available!) } }, reserved, credits }, `${asked} asked, ${available} available`);
  }
  assert.deepEqual(t.fake.last('POST').body, [{ place_id: 'ChIJabc', location_name: 'United Kingdom', language_code: 'pt', depth: 4490, sort_by: 'newest' }]);
});

test('reviews input: at most 4490 reviews; a location code goes upstream as location_code', async () => {
  assert.equal(await outcome(reviews({ cid: '1', reviews: 4491 })), "400 Invalid input: 'reviews' expected integer to be less or equal to 4490.");
  const byCode = await reviews({ cid: '42', location: '2840' });
  assert.deepEqual([t.fake.last('POST').body[0].location_code, byCode.data.cid], [2840, '42']);
});

test('a task never ready is abandoned at the deadline (502) and polling stops', async () => {
  t.fake.task = 'never_ready';
  assert.equal(await outcome(reviews({ keyword: 'slow' }, undefined, await t.harness({ SEO_A_TASK_TIMEOUT_MS: '1000' }))), '502 The seo_a service did not finish the task within 1 s.');
  await staysQuiet(t.fake, 300, 'no poll after the deadline');
});

test('a client hang-up abandons the task: the call ends and no poll follows', async () => {
  // A long first wait, so the hang-up lands while the client waits to poll (deterministically).
  const patient = await t.harness({ SEO_A_POLL_INTERVAL_MS: '2000' });
  const [ctl, posted] = [new AbortController(), t.fake.requests.length];
  const call = outcome(reviews({ keyword: 'hang up' }, { signal: ctl.signal }, patient));
  await eventually(() => t.fake.requests.length > posted, 'the task post'); // the fake answers a request in the turn it logs it
  const seen = t.fake.requests.length;
  ctl.abort(new Error('client disconnected'));
  // The executor reports the hang-up itself (the HTTP lane records it as 499); the call is not served.
  assert.notEqual(await call, '200');
  await staysQuiet(t.fake, 2500, 'no poll after the hang-up', seen);
});

test('keyword ideas: live call, mapped items, charged per started 100 ideas returned', async () => {
  const r = await ideas({ keywords: ['Espresso Machine'], limit: 150 });
  assert.deepEqual([t.fake.last('POST').path, t.fake.last('POST').body], ['/v3/dataforseo_labs/google/keyword_ideas/live', [{ keywords: ['espresso machine'], location_name: 'United States', limit: 150 }]]);
  assert.deepEqual(r.data.items[0], { keyword: 'espresso machine idea 1', searchVolume: 1000, competition: 0.5, competitionLevel: 'MEDIUM', cpc: 1.25, lowTopOfPageBid: 0.5, highTopOfPageBid: 2.5, monthlySearches: [{ year: 2024, month: 7, searchVolume: 900 }, { year: 2024, month: 6, searchVolume: 1100 }], keywordDifficulty: 40, searchIntent: 'commercial' });
  assert.deepEqual([r.data.items.length, r.data.total, r.data.offset, r.data.locationCode, r.reserved, r.credits], [150, 250, 0, 2840, 40, 40]);
  like(await ideas({ keywords: ['espresso'], offset: 300 }), { data: { items: [] }, credits: 0 }, 'past the last idea: nothing to charge');
});
