/**
 * `POST /api/v1/get-engine-reviews` (spec §4.4, §8.1; issue 14) through the real server with seo_a
 * pointed at its fake: the spec's response fields, 50 credits per started 10 reviews actually
 * returned (0, 9, 10, 11 and 4490), the spec's 400, provider failures with the balance unchanged,
 * automation-platform blanks, and the not-configured answer.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFake, type SeoAFake } from '../plugins/seo_a/fake.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';

const SPEC_FIELDS = ['keyword', 'type', 'se_domain', 'language_code', 'check_url', 'datetime', 'title', 'sub_title', 'feature_id', 'place_id', 'cid', 'location_code', 'reviews_count', 'items_count', 'rating', 'items'];
const ITEM_FIELDS = ['type', 'position', 'review_text', 'original_review_text', 'time_ago', 'timestamp', 'profile_name', 'profile_url', 'review_url', 'profile_image_url', 'owner_answer', 'original_owner_answer', 'owner_time_ago', 'owner_timestamp', 'review_id', 'rank_group', 'rank_absolute', 'reviews_count', 'photos_count', 'local_guide', 'rating', 'images'];

describe('get-engine-reviews through the server', () => {
  let fake: SeoAFake;
  let s: TestServer;
  let key: string;
  const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
  const reviews = (body: Record<string, unknown>) => s.call('POST', '/api/v1/get-engine-reviews', { key, body });

  before(async () => {
    fake = await startFake();
    s = await startServer({ serviceConfig: pluginsConfig(['seo_a']), env: fake.env });
    ({ key } = await s.createKey({ credits: 100_000, rateLimitPerMinute: 10_000 }));
  });
  after(async () => {
    await s?.close();
    await fake?.close();
  });

  it('answers every field of spec §4.4 and charges 50 for 10 reviews', async () => {
    const before = await balance();
    const r = await reviews({ keyword: 'hedonism wines', requestSource: 'API' });
    assert.equal(r.status, 200, r.text);
    for (const f of SPEC_FIELDS) assert.ok(f in r.json, `response field ${f}`);
    for (const f of ITEM_FIELDS) assert.ok(f in r.json.items[0], `item field ${f}`);
    assert.deepEqual(r.json.rating, { rating_type: 'Max5', value: 4.7, votes_count: 4490, rating_max: 5 });
    assert.deepEqual(r.json.items[0].images[0], { type: 'images_element', alt: 'shop', url: 'https://maps.example/photo/1', image_url: 'https://img.example/photo1.jpg' });
    assert.equal(r.json.items_count, 10);
    assert.equal(r.headers['x-credits-charged'], '50');
    assert.equal(await balance(), before - 50);
  });

  it('charges per started 10 reviews actually returned: 0 → 0, 9 → 50, 10 → 50, 11 → 100, 4490 → 22450', async () => {
    const cases: [asked: number, available: number, returned: number, credits: number][] = [
      [10, 0, 0, 0],
      [9, 4490, 9, 50],
      [10, 4490, 10, 50],
      [11, 4490, 11, 100],
      [50, 11, 11, 100],
      [4490, 4490, 4490, 22450],
    ];
    try {
      for (const [asked, available, returned, credits] of cases) {
        fake.available = available;
        const before = await balance();
        const r = await reviews({ cid: '194604053573767737', reviews: asked, sortBy: 'newest' });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual([r.json.items.length, r.json.items_count], [returned, returned], `${asked} asked of ${available}`);
        assert.equal(r.headers['x-credits-charged'], String(credits), `${asked} asked of ${available}`);
        assert.equal(await balance(), before - credits);
      }
    } finally {
      fake.available = 4490;
    }
  });

  it('reserves for the number asked: a balance short of it is 403 before the provider is called', async () => {
    const { key: poor } = await s.createKey({ credits: 100 });
    const n = fake.requests.length;
    const r = await s.call('POST', '/api/v1/get-engine-reviews', { key: poor, body: { keyword: 'x', reviews: 21 } });
    assert.deepEqual([r.status, r.json], [403, { error: 'Insufficient credits. Please top up your account.' }]);
    assert.equal(fake.requests.length, n);
  });

  it('spec 400 without keyword, cid or placeId (blanks count as missing); defaults for blank optional fields', async () => {
    const n = fake.requests.length;
    for (const body of [{}, { keyword: '', cid: null, placeId: '' }, { reviews: 5 }]) {
      const r = await reviews(body);
      assert.deepEqual([r.status, r.json], [400, { error: 'Either keyword, cid, or placeId must be provided' }], JSON.stringify(body));
    }
    assert.equal(fake.requests.length, n);
    const r = await reviews({ placeId: 'ChIJabc', reviews: null, sortBy: '', language: '', location: '' });
    assert.equal(r.status, 200, r.text);
    const post = fake.requests.filter((q) => q.method === 'POST').at(-1)!;
    assert.deepEqual(post.body, [{ place_id: 'ChIJabc', location_name: 'London,England,United Kingdom', language_code: 'en', depth: 10, sort_by: 'relevant' }]);
  });

  it('provider failures: spec texts, nothing charged', async () => {
    const before = await balance();
    const cases: [string, (f: SeoAFake) => void, number, string][] = [
      ['task_error', (f) => (f.task = 'task_error'), 500, 'Failed to fetch engine reviews: Internal SE Server Error.'],
      ['no_results', (f) => (f.task = 'no_results'), 500, 'Failed to fetch engine reviews: No Search Results.'],
      ['rate_limited', (f) => f.rateLimit(), 503, 'Rate limit exceeded. Please try again later.'],
      ['server_error', (f) => f.failWith(500), 502, 'Failed to retrieve data from seo_a service.'],
    ];
    try {
      for (const [mode, breakIt, status, error] of cases) {
        fake.reset();
        breakIt(fake);
        const r = await reviews({ keyword: 'x' });
        assert.deepEqual([r.status, r.json], [status, { error }], mode);
      }
    } finally {
      fake.reset();
    }
    const unknown = await reviews({ keyword: 'x', location: 'Atlantis' });
    assert.deepEqual([unknown.status, unknown.json], [400, { error: "seo_a rejected the request: Invalid Field: 'location_name'." }]);
    assert.equal(await balance(), before);
  });
});

describe('get-engine-reviews without seo_a credentials', () => {
  let s: TestServer;
  after(() => s?.close());

  it('answers Service not configured and names both settings', async () => {
    s = await startServer({ serviceConfig: pluginsConfig(['seo_a']), env: { SEO_A_LOGIN: '', SEO_A_PASSWORD: '' } });
    const { key } = await s.createKey({ credits: 100 });
    const r = await s.call('POST', '/api/v1/get-engine-reviews', { key, body: { keyword: 'x' } });
    assert.deepEqual([r.status, r.json], [500, { error: 'Service not configured. Please contact support.' }]);
    const d = await s.call('POST', '/api/v2/details', { key, body: { id: 'seo_a', type: 'provider' } });
    assert.deepEqual(d.json.data.missingSettings, ['SEO_A_LOGIN', 'SEO_A_PASSWORD']);
  });
});
