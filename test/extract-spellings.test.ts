/**
 * Field spellings real clients send to the extraction routes (issue 28), through the real server
 * against the fake model: a singular `image` is a one-element `images`; an `extract` schema given
 * as a shorthand map (field → type name) becomes a JSON Schema; any other schema is a free 400
 * before the page is fetched or the model called.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { textPng } from './fixtures/extract/make.js';
import { startFake, type ModelFake } from '../plugins/extract/fake.js';

let fake: ModelFake;
let s: TestServer;
let key: string;
let origin: Server;
let originUrl: string;
let pageHits = 0;

before(async () => {
  fake = await startFake();
  origin = createServer((_req, res) => {
    pageHits++;
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Kettle</title></head><body><main><h1>Blue Kettle</h1><p>Price: 39 euros. Made of steel, it boils a litre in ninety seconds.</p></main></body></html>');
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/product`;
  s = await startServer({ env: { ...fake.env, ALLOW_PRIVATE_NETWORK: 'true' }, serviceConfig: pluginsConfig(['web', 'extract']) });
  ({ key } = await s.createKey({ credits: 10_000 }));
});
after(async () => {
  await s?.close();
  await fake?.close();
  origin?.close();
});

const post = (path: string, body: unknown) => s.call('POST', path, { key, body });
const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;

test('extract-image: a singular image is read as one image, 110 credits', async () => {
  const start = await balance();
  const r = await post('/api/v1/extract-image', { inputMethod: 'base64', image: textPng('Ticket 42').toString('base64'), prompt: 'Read it' });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.imageCount, 1);
  assert.equal(fake.chats.at(-1)!.images.length, 1);
  assert.equal(await balance(), start - 110);
  const both = await post('/api/v1/extract-image', { inputMethod: 'base64', image: 'x', images: ['y'], prompt: 'x' });
  assert.deepEqual([both.status, both.json.error], [400, "Give either 'image' or 'images', not both."]);
  const none = await post('/api/v1/extract-image', { inputMethod: 'base64', prompt: 'x' });
  assert.deepEqual([none.status, none.json.error], [400, "'images' parameter is required and must be an array of 1 to 20 non-empty strings."]);
  assert.equal(await balance(), start - 110);
});

test('extract: a shorthand schema becomes a JSON Schema the model is held to', async () => {
  const r = await post('/api/v1/extract', { url: originUrl, schema: { title: 'string', price: 'number', tags: ['string'], maker: { name: 'string' } } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(fake.chats.at(-1)!.format?.json_schema?.schema, {
    type: 'object',
    properties: {
      title: { type: 'string' },
      price: { type: 'number' },
      tags: { type: 'array', items: { type: 'string' } },
      maker: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
    },
    required: ['title', 'price', 'tags', 'maker'],
    additionalProperties: false,
  });
  assert.equal(typeof r.json.results.title, 'string');
  assert.equal(typeof r.json.results.price, 'number');
  // A JSON Schema given with properties but no type is an object schema.
  const plain = { properties: { name: { type: 'string' } } };
  const r2 = await post('/api/v1/extract', { url: originUrl, schema: plain });
  assert.equal(r2.status, 200, r2.text);
  assert.deepEqual(fake.chats.at(-1)!.format?.json_schema?.schema, { type: 'object', ...plain });
});

test('extract: a schema that is neither form is a free 400 before any work', async () => {
  const start = await balance();
  const chats = fake.chats.length;
  const hits = pageHits;
  const cases: [unknown, RegExp][] = [
    [{ title: 5 }, /'schema' must be a JSON Schema of type 'object' \(with 'type' or 'properties'\), or a map of field names to type names/],
    [{ title: 'text' }, /or a map of field names to type names/],
    [{ type: 'array', items: { type: 'string' } }, /^'schema' must be a JSON Schema of type 'object'\.$/],
    [{}, /or a map of field names to type names/],
  ];
  for (const [schema, message] of cases) {
    const r = await post('/api/v1/extract', { url: originUrl, schema });
    assert.equal(r.status, 400, JSON.stringify(schema));
    assert.match(r.json.error, message);
  }
  assert.equal(fake.chats.length, chats, 'no model call');
  assert.equal(pageHits, hits, 'no page fetched');
  assert.equal(await balance(), start);
});
