/**
 * The professional-network routes (spec §4.3; issue 13) through the real HTTP server, served by
 * creator_a against the loopback fake of its contract: the company fields, missing sections left
 * out, the person's profile, 400s for URLs of the wrong kind, and failures that cost nothing.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startFake as startCreatorAFake, type CreatorAFake } from '../plugins/creator_a/fake.js';

const COMPANY = 'https://www.linkedin.com/company/example-co/';
const PERSON = 'https://www.linkedin.com/in/jane-example/';

describe('bizsite routes through creator_a', () => {
  let fake: CreatorAFake;
  let s: TestServer;
  let key: string;

  before(async () => {
    fake = await startCreatorAFake();
    s = await startServer({ env: fake.env, serviceConfig: pluginsConfig(['creator_a']) });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(async () => {
    await s?.close();
    await fake?.close();
  });

  const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;
  async function post(path: string, body: unknown) {
    const before = await balance();
    const r = await s.call('POST', path, { key, body });
    return { ...r, cost: before - (await balance()) };
  }

  it('company: spec §4.3 fields (formal and "may also carry"), 10 credits', async () => {
    const r = await post('/api/v1/bizsite/company', { url: COMPANY });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.cost, 10);
    assert.equal(fake.requests.at(-1)!.path, '/v1/linkedin/company');
    assert.deepEqual(fake.requests.at(-1)!.query, { url: COMPANY });
    assert.deepEqual(r.json, {
      success: true,
      name: 'Example Co',
      description: 'We make examples.',
      website: 'https://example.com',
      logo: 'https://media.example/logo.png',
      image: 'https://media.example/cover.png',
      slogan: 'Examples for everyone',
      industry: 'Software Development',
      size: '1,001-5,000 employees',
      companySize: '1,001-5,000 employees',
      headquarters: 'Mountain View, California',
      type: 'Public Company',
      companyType: 'Public Company',
      location: { city: 'Mountain View', state: 'California', country: 'US' },
      employeeCount: 2350,
      founded: 1998,
      followers: 12345,
      specialties: ['examples', 'testing'],
      posts: [{ url: 'https://www.linkedin.com/posts/example-co_1', datePublished: '2025-01-10T09:00:00.000Z', text: 'We are hiring.' }],
      employees: [{ name: 'Ada Example', title: 'CTO', image: 'https://media.example/ada.png', bizsiteUrl: 'https://www.linkedin.com/in/ada-example' }],
    });
  });

  it('company: sections that are not public are absent, not invented', async () => {
    const r = await post('/api/v1/bizsite/company', { url: 'https://www.linkedin.com/company/sparse-co' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { success: true, name: 'Sparse Co' });
  });

  it("profile: a person's public profile", async () => {
    const r = await post('/api/v1/bizsite/profile', { url: PERSON });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.cost, 10);
    assert.deepEqual(r.json, {
      success: true,
      name: 'Jane Example',
      headline: 'Engineer at Example Co',
      location: 'Berlin, Germany',
      image: 'https://media.example/jane.png',
      url: PERSON,
      followers: 12847,
      connections: '500+',
      about: 'Builds things.',
      experience: [
        { title: 'Engineer', company: 'Example Co', companyUrl: 'https://www.linkedin.com/company/example-co', location: 'Berlin', startDate: '2021-03', description: 'Builds examples.' },
        { title: 'Intern', company: 'Old Corp', startDate: '2019-06', endDate: '2020-02' },
      ],
      education: [{ school: 'Example University', degree: 'BSc, Computer Science', startDate: '2015', endDate: '2019' }],
      recentPosts: [{ title: 'Shipped it', activityType: 'Posted by Jane Example', link: 'https://www.linkedin.com/posts/jane_1' }],
    });
  });

  it('400s: a URL without /company/ (or /in/) says so; nothing is charged or sent', async () => {
    const calls = fake.requests.length;
    for (const [path, body, error] of [
      ['/api/v1/bizsite/company', {}, "'url' parameter is required and must be a non-empty string."],
      ['/api/v1/bizsite/company', { url: PERSON }, 'Invalid bizsite company URL: it must contain the path segment /company/ followed by the page name (e.g. https://www.linkedin.com/company/name/).'],
      ['/api/v1/bizsite/profile', { url: COMPANY }, 'Invalid bizsite profile URL: it must contain the path segment /in/ followed by the page name (e.g. https://www.linkedin.com/in/name/).'],
    ] as const) {
      const r = await post(path, body);
      assert.deepEqual({ status: r.status, body: r.json, cost: r.cost }, { status: 400, body: { error }, cost: 0 }, `${path} ${JSON.stringify(body)}`);
    }
    assert.equal(fake.requests.length, calls);
  });

  it('unknown pages are 404s and broken answers 502s, both free', async () => {
    const ghost = await post('/api/v1/bizsite/company', { url: 'https://www.linkedin.com/company/ghost-co' });
    assert.deepEqual({ status: ghost.status, body: ghost.json, cost: ghost.cost }, { status: 404, body: { error: 'Company not found for URL: https://www.linkedin.com/company/ghost-co' }, cost: 0 });
    const broken = await post('/api/v1/bizsite/company', { url: 'https://www.linkedin.com/company/broken-co' });
    assert.deepEqual({ status: broken.status, body: broken.json, cost: broken.cost }, { status: 502, body: { error: 'Received invalid data structure from bizsite service.' }, cost: 0 });
    const nobody = await post('/api/v1/bizsite/profile', { url: 'https://www.linkedin.com/in/nobody' });
    assert.deepEqual({ status: nobody.status, cost: nobody.cost }, { status: 404, cost: 0 });
  });

  it('without CREATOR_A_API_KEY the routes answer Service not configured', async () => {
    const bare = await startServer({ env: { CREATOR_A_BASE_URL: fake.url }, serviceConfig: pluginsConfig(['creator_a']) });
    try {
      const { key: k } = await bare.createKey({ credits: 100 });
      for (const path of ['/api/v1/bizsite/company', '/api/v1/get-clipsite-profile']) {
        const body = path.includes('bizsite') ? { url: COMPANY } : { handle: 'creator' };
        const r = await bare.call('POST', path, { key: k, body });
        assert.deepEqual({ status: r.status, body: r.json }, { status: 500, body: { error: 'Service not configured. Please contact support.' } }, path);
      }
    } finally {
      await bare.close();
    }
  });
});
