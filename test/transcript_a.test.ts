/**
 * transcript_a through the real server (spec §4.1, §4.10, §8.1; issue 12): the transcript chain
 * of the deployment (videosite_native → transcript_a → creator_a) with the video site refusing
 * this server, so `meta.fallbacks` names who failed; credits only for answers; the three public
 * endpoints on v2; not configured without a key.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { serveLoopback, type LoopbackServer } from '../core/testing/index.js';
import deployment from '../plugins.config.js';
import { TA_NO_CAPTIONS, TA_VIDEO, startFake as startTranscriptAFake, type TranscriptAFake } from '../plugins/transcript_a/fake.js';
import { startFake as startCreatorAFake, type CreatorAFake } from '../plugins/creator_a/fake.js';

const VIDEO = `https://www.youtube.com/watch?v=${TA_VIDEO}`;
const CHAIN = ['videosite_native', 'transcript_a', 'creator_a'];

/** A video site answering every request with its "unusual traffic" 429 page. */
const blockedSite = () =>
  serveLoopback((req, res) => {
    req.resume();
    res.writeHead(429, { 'content-type': 'text/html' });
    res.end('<html><body>Our systems have detected unusual traffic from your computer network.</body></html>');
  });

describe('get_videosite_transcript falls back from the native provider to transcript_a, then creator_a', () => {
  let ta: TranscriptAFake;
  let creator: CreatorAFake;
  let site: LoopbackServer;
  let s: TestServer;
  let key: string;

  before(async () => {
    ta = await startTranscriptAFake();
    creator = await startCreatorAFake();
    site = await blockedSite();
    s = await startServer({
      env: { ...ta.env, ...creator.env, VIDEOSITE_NATIVE_BASE_URL: site.url, ALLOW_PRIVATE_NETWORK: 'true' },
      serviceConfig: pluginsConfig(CHAIN, { get_videosite_transcript: deployment.providerOrder!.get_videosite_transcript! }),
    });
    ({ key } = await s.createKey({ credits: 10_000 }));
  });
  after(async () => {
    await s?.close();
    await ta?.close();
    await creator?.close();
    await site?.close();
  });

  const balance = async (k = key) => (await s.call('GET', '/api/v2/balance', { key: k })).json.data.credits as number;
  /** Calls a route and returns the response with the credits it cost. */
  async function post(path: string, body: unknown, k = key) {
    const before = await balance(k);
    const r = await s.call('POST', path, { key: k, body });
    return { ...r, cost: before - (await balance(k)) };
  }

  it('the deployment tries the native provider, then transcript_a, then creator_a', () => {
    assert.deepEqual(deployment.providerOrder!.get_videosite_transcript, CHAIN);
  });

  it('v1: the site blocks the server, transcript_a answers in the spec shape for 20 credits', async () => {
    const r = await post('/api/v1/get-videosite-transcript', { videoUrl: `https://youtu.be/${TA_VIDEO}`, preferredLanguage: 'es', requestSource: 'AUTOMATION_A' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { transcript: '[0:00] Hola y bienvenidos al laboratorio hoy probamos transcripciones de un proveedor\n[0:12] con siete líneas el fin', language: 'es' });
    assert.equal(r.cost, 20);
    assert.equal(ta.requests.at(-1)!.query.lang, 'es');
  });

  it('v2: meta.provider is transcript_a and meta.fallbacks names the blocked native provider', async () => {
    const r = await post('/api/v2/run', { type: 'capability', id: 'get_videosite_transcript', input: { videoUrl: VIDEO, timestampsToCombine: 2 } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.meta.provider, 'transcript_a');
    assert.deepEqual(r.json.meta.fallbacks, [{ provider: 'videosite_native', code: 'UPSTREAM_RATE_LIMITED' }]);
    assert.equal(r.json.meta.credits, 20);
    assert.equal(r.cost, 20);
    assert.deepEqual(r.json.data.transcript.split('\n').slice(0, 2), ['[0:00] Hello and welcome to the fixture lab', '[0:05] today we test transcripts']);
    assert.deepEqual(Object.keys(r.json.data).sort(), ['language', 'transcript']);
  });

  it('no subtitles at transcript_a: 404 with the spec text, nothing charged, no further provider asked', async () => {
    const creatorCalls = creator.requests.length;
    const r = await post('/api/v1/get-videosite-transcript', { videoUrl: `https://www.youtube.com/shorts/${TA_NO_CAPTIONS}` });
    assert.deepEqual({ status: r.status, body: r.json, cost: r.cost }, { status: 404, body: { error: `No subtitles found for the video: ${TA_NO_CAPTIONS}` }, cost: 0 });
    assert.equal(creator.requests.length, creatorCalls, 'a 404 is an answer, not a provider failure');
  });

  it('transcript_a failing too: creator_a answers and meta.fallbacks lists both; everything failing costs nothing', async () => {
    ta.failWith(500);
    try {
      const r = await post('/api/v2/run', { type: 'capability', id: 'get_videosite_transcript', input: { videoUrl: VIDEO } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.meta.provider, 'creator_a');
      assert.deepEqual(r.json.meta.fallbacks, [
        { provider: 'videosite_native', code: 'UPSTREAM_RATE_LIMITED' },
        { provider: 'transcript_a', code: 'UPSTREAM_ERROR' },
      ]);
      assert.equal(r.cost, 20);
      creator.failWith(500);
      const all = await post('/api/v1/get-videosite-transcript', { videoUrl: VIDEO });
      assert.deepEqual({ status: all.status, cost: all.cost }, { status: 502, cost: 0 }, all.text);
      ta.outOfCredits();
      creator.rateLimit();
      const limited = await post('/api/v1/get-videosite-transcript', { videoUrl: VIDEO });
      assert.deepEqual({ status: limited.status, body: limited.json, cost: limited.cost }, { status: 503, body: { error: 'Rate limit exceeded. Please try again later.' }, cost: 0 });
    } finally {
      ta.reset();
      creator.reset();
    }
  });

  it('a key whose policy blocks the native provider is served by transcript_a directly', async () => {
    const { key: k } = await s.createKey({ credits: 100, policy: { block: ['videosite_native'] } });
    const r = await post('/api/v2/run', { type: 'capability', id: 'get_videosite_transcript', input: { videoUrl: VIDEO } }, k);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.meta.provider, 'transcript_a');
    assert.equal(r.json.meta.fallbacks, undefined);
    assert.equal(r.cost, 20);
  });

  it('the three transcript_a endpoints run on v2 (spec §4.10), with the native payload on request', async () => {
    const t = await post('/api/v2/run', { type: 'endpoint', id: 'transcript_a.videosite_transcript', input: { videoUrl: VIDEO, preferredLanguage: 'de-DE' as never }, options: { include_native: true } });
    assert.equal(t.status, 400, 'de-DE is not in the spec §4.1 list');
    const de = await post('/api/v2/run', { type: 'endpoint', id: 'transcript_a.videosite_transcript', input: { videoUrl: VIDEO, preferredLanguage: 'de' }, options: { include_native: true } });
    assert.equal(de.status, 200, de.text);
    assert.deepEqual({ language: de.json.data.language, available: de.json.data.availableLanguages, cost: de.cost }, { language: 'de', available: ['en', 'de', 'es'], cost: 20 });
    assert.equal(de.json.meta.native.content[0].text, 'Hallo und willkommen');
    const search = await post('/api/v2/run', { type: 'endpoint', id: 'transcript_a.videosite_search', input: { query: 'surface go', type: 'playlist' } });
    assert.equal(search.status, 200, search.text);
    assert.deepEqual({ urls: search.json.data.results.map((r: any) => r.url), cost: search.cost }, { urls: ['https://www.youtube.com/playlist?list=PLfixture0001'], cost: 10 });
    const list = await post('/api/v2/run', { type: 'endpoint', id: 'transcript_a.videosite_channel_videos', input: { channelId: 'UCfixtureLabChannel00001', type: 'live' } });
    assert.deepEqual({ status: list.status, live: list.json.data.liveIds, cost: list.cost }, { status: 200, live: ['labLive0000'], cost: 10 });
    const none = await post('/api/v2/run', { type: 'endpoint', id: 'transcript_a.videosite_channel_videos', input: { handle: '@nobody_here' } });
    assert.deepEqual({ status: none.status, error: none.json.error, cost: none.cost }, { status: 404, error: 'Channel not found: @nobody_here', cost: 0 });
  });
});

describe('transcript_a without a key', () => {
  let site: LoopbackServer;
  let s: TestServer;
  let key: string;

  before(async () => {
    site = await blockedSite();
    s = await startServer({
      env: { VIDEOSITE_NATIVE_BASE_URL: site.url, ALLOW_PRIVATE_NETWORK: 'true', TRANSCRIPT_A_API_KEY: undefined },
      serviceConfig: pluginsConfig(['videosite_native', 'transcript_a'], { get_videosite_transcript: ['videosite_native', 'transcript_a'] }),
    });
    ({ key } = await s.createKey({ credits: 100 }));
  });
  after(async () => {
    await s?.close();
    await site?.close();
  });

  it('its endpoints answer Service not configured; the transcript chain skips it', async () => {
    const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'transcript_a.videosite_search', input: { query: 'x' } } });
    assert.deepEqual({ status: r.status, error: r.json.error }, { status: 500, error: 'Service not configured. Please contact support.' });
    const t = await s.call('POST', '/api/v1/get-videosite-transcript', { key, body: { videoUrl: VIDEO } });
    assert.deepEqual({ status: t.status, body: t.json }, { status: 503, body: { error: 'Rate limit exceeded. Please try again later.' } });
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 100);
  });
});
