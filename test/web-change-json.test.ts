/**
 * Change tracking's json mode (issue 27) through the real server, with the extraction lane's
 * model played by its loopback fake: new → same → changed with a field-by-field before/after,
 * the extraction's price added only when the model extracted, a model failure free and leaving
 * the snapshot as it was, and without a configured model the spec's `Service not configured`.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';
import { closeLoopback, serveLoopback } from './helpers/loopback.js';

let site: http.Server;
let base = '';
let price = 39;

before(async () => {
  ({ server: site, base } = await serveLoopback((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<title>Blue Kettle</title><h1>Blue Kettle</h1><p>Boils a litre in ninety seconds.</p><p>Price: ${price} euros.</p>`);
  }));
});
after(() => {
  closeLoopback(site);
});

const ENV = { ALLOW_PRIVATE_NETWORK: 'true' };
const SCHEMA = { name: 'string', price: 'number' };

function client(s: TestServer, key: string) {
  return {
    run: (input: Record<string, unknown>) => s.call('POST', '/api/v2/run', { key, body: { type: 'capability', id: 'scrape_page', input: { renderJs: false, url: `${base}/kettle`, ...input } } }),
    credits: async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number,
  };
}

const tracked = (modes: string[] = ['git-diff', 'json'], extra: Record<string, unknown> = {}) => ({
  formats: ['markdown', 'changeTracking'],
  changeTrackingOptions: { modes, schema: SCHEMA, ...extra },
});

describe('changeTracking json mode with a configured model', () => {
  let fake: ModelFake;
  let s: TestServer;
  let c: ReturnType<typeof client>;
  before(async () => {
    fake = await startFake();
    s = await startServer({ serviceConfig: pluginsConfig(['web', 'extract']), env: { ...ENV, ...fake.env } });
    c = client(s, (await s.createKey({ credits: 10_000 })).key);
  });
  after(async () => {
    await s?.close();
    await fake?.close();
  });

  it('new → same → changed: the fields that moved, priced 10 + 100 only when the model extracted', async () => {
    price = 39;
    let credits = await c.credits();
    fake.replies.push(JSON.stringify({ name: 'Blue Kettle', price: 39 }));
    const first = await c.run(tracked());
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.json.data.changeTracking, {
      previousScrapeAt: null,
      changeStatus: 'new',
      visibility: 'visible',
      json: { name: { previous: null, current: 'Blue Kettle' }, price: { previous: null, current: 39 } },
    });
    // The model read this scrape's markdown, asked for the schema's fields.
    const asked = fake.chats.at(-1)!;
    assert.match(asked.text, /Price: 39 euros/);
    assert.equal(asked.format?.type, 'json_schema');
    assert.deepEqual(Object.keys(asked.format?.json_schema?.schema?.properties ?? {}), ['name', 'price']);
    assert.equal(await c.credits(), credits - 110);
    credits -= 110;

    const chats = fake.chats.length;
    const same = await c.run(tracked());
    assert.equal(same.status, 200, same.text);
    assert.equal(same.json.data.changeTracking.changeStatus, 'same');
    assert.deepEqual(same.json.data.changeTracking.json, {}, 'no field differs');
    assert.equal(fake.chats.length, chats, 'an unchanged page reuses the extraction in its snapshot');
    assert.equal(await c.credits(), credits - 10, 'and costs a plain scrape');
    credits -= 10;

    price = 42;
    fake.replies.push(JSON.stringify({ name: 'Blue Kettle', price: 42 }));
    const changed = await c.run(tracked());
    assert.equal(changed.status, 200, changed.text);
    const ct = changed.json.data.changeTracking;
    assert.equal(ct.changeStatus, 'changed');
    assert.ok(Date.parse(ct.previousScrapeAt) >= Date.parse(same.json.data.changeTracking.previousScrapeAt));
    assert.deepEqual(ct.json, { price: { previous: 39, current: 42 } });
    assert.match(ct.diff, /^-Price: 39 euros\.$/m);
    assert.match(ct.diff, /^\+Price: 42 euros\.$/m);
    assert.equal(await c.credits(), credits - 110);
    credits -= 110;

    // json alone: no text diff.
    price = 45;
    fake.replies.push(JSON.stringify({ name: 'Blue Kettle', price: 45 }));
    const jsonOnly = await c.run(tracked(['json']));
    assert.equal(jsonOnly.json.data.changeTracking.diff, undefined);
    assert.deepEqual(jsonOnly.json.data.changeTracking.json, { price: { previous: 42, current: 45 } });
    assert.equal(await c.credits(), credits - 110);
  });

  it('a model failure is free and leaves the snapshot to compare against', async () => {
    price = 45;
    fake.replies.push(JSON.stringify({ name: 'Blue Kettle', price: 45 }));
    await c.run(tracked(['json'], { prompt: 'The product name and price' }));
    const credits = await c.credits();
    price = 50;
    fake.failWith(500);
    const failed = await c.run(tracked(['json'], { prompt: 'The product name and price' }));
    fake.reset();
    assert.equal(failed.status, 502, failed.text);
    assert.equal(await c.credits(), credits, 'nothing charged');
    fake.replies.push(JSON.stringify({ name: 'Blue Kettle', price: 50 }));
    const next = await c.run(tracked(['json'], { prompt: 'The product name and price' }));
    assert.equal(next.json.data.changeTracking.changeStatus, 'changed');
    assert.deepEqual(next.json.data.changeTracking.json, { price: { previous: 45, current: 50 } });
  });

  it('another schema or prompt is not compared with an earlier extraction', async () => {
    fake.replies.push(JSON.stringify({ name: 'Blue Kettle' }));
    const other = await c.run({ formats: ['changeTracking'], changeTrackingOptions: { modes: ['json'], schema: { name: 'string' } } });
    assert.equal(other.status, 200, other.text);
    assert.equal(other.json.data.changeTracking.changeStatus, 'same');
    assert.deepEqual(other.json.data.changeTracking.json, { name: { previous: null, current: 'Blue Kettle' } });
  });

  it('refuses json mode without a schema or prompt, and options without the format, for free', async () => {
    const credits = await c.credits();
    const none = await c.run({ formats: ['changeTracking'], changeTrackingOptions: { modes: ['json'] } });
    assert.equal(none.status, 400, none.text);
    assert.equal(none.json.error, "changeTracking json mode needs 'changeTrackingOptions.schema' or 'changeTrackingOptions.prompt'.");
    const noFormat = await c.run({ formats: ['markdown'], changeTrackingOptions: { modes: ['json'], schema: SCHEMA } });
    assert.equal(noFormat.status, 400, noFormat.text);
    assert.equal(noFormat.json.error, "'changeTrackingOptions' needs the changeTracking format in 'formats'.");
    const badSchema = await c.run({ formats: ['changeTracking'], changeTrackingOptions: { modes: ['json'], schema: { type: 'array' } } });
    assert.equal(badSchema.status, 400, badSchema.text);
    assert.equal(await c.credits(), credits);
  });
});

describe('changeTracking json mode without a model', () => {
  let s: TestServer;
  let c: ReturnType<typeof client>;
  before(async () => {
    s = await startServer({ serviceConfig: pluginsConfig(['web', 'extract']), env: { ...ENV, MODEL_API_KEY: undefined } });
    c = client(s, (await s.createKey({ credits: 1000 })).key);
  });
  after(() => s?.close());

  it('answers Service not configured, charges nothing and keeps no snapshot; git-diff still works', async () => {
    const credits = await c.credits();
    const r = await c.run(tracked());
    assert.equal(r.status, 500, r.text);
    assert.equal(r.json.error, 'Service not configured. Please contact support.');
    assert.equal(await c.credits(), credits);
    const plain = await c.run({ formats: ['changeTracking'] });
    assert.equal(plain.status, 200, plain.text);
    assert.equal(plain.json.data.changeTracking.changeStatus, 'new', 'the refused call left no snapshot');
    assert.equal(await c.credits(), credits - 10);
  });
});
