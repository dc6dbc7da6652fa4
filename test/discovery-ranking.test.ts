/**
 * Discovery order (issue 19): for an intent a capability serves, the capability comes first and its
 * provider endpoints follow; plural and -ing forms match; a query of stop words, or for a job the
 * key cannot reach on v2, returns nothing unrelated. A capability a new plugin adds is found too.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import serviceConfig from '../plugins.config.js';
import { Type, defineCapability, defineEndpoint, definePlugin, flat } from '../core/sdk.js';
import { startServer, type TestServer } from './helpers/server.js';

/** A plugin as a third party would add it: a new capability and the endpoint serving it. */
const weather = definePlugin({
  id: 'weather_x',
  apiVersion: 1,
  title: 'Weather provider X',
  summary: 'Forecasts.',
  capabilities: [
    defineCapability({ id: 'weather_forecast', title: 'Weather forecast', summary: 'Hourly temperature and rain for a city.', tags: ['weather', 'forecast'], input: Type.Object({ city: Type.String({ description: 'City name.' }) }), cost: flat(5) }),
  ],
  endpoints: [
    defineEndpoint({ operation: 'forecast', title: 'Forecast from X', summary: 'Hourly forecast.', input: Type.Object({ city: Type.String({ description: 'City name.' }) }), output: Type.Object({ hours: Type.Array(Type.Number(), { description: 'Temperatures.' }) }), cost: flat(5), run: async () => ({ hours: [] }) }),
  ],
  implements: [{ capability: 'weather_forecast', endpoint: 'forecast' }],
});

/** Query → the id that must come first. */
const FIRST: [string, string][] = [
  ['take a screenshot of a website', 'screenshot'],
  ['screenshots', 'screenshot'],
  ['crawling a whole site', 'crawl_site'],
  ['crawl', 'crawl_site'],
  ['scrape a web page to markdown', 'scrape_page'],
  ['news articles from the past week', 'search_news'],
  ['transcript of a video', 'get_videosite_transcript'],
  ['web search results', 'engine_search'],
  ['weather forecast for a city', 'weather_forecast'],
];

describe('discovery order', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startServer({ serviceConfig: { ...serviceConfig, plugins: { ...serviceConfig.plugins, weather_x: async () => ({ default: weather }) } } });
    ({ key } = await s.createKey({ credits: 10 }));
  });
  after(async () => s?.close());

  const search = async (query: string, limit = 10) => {
    const r = await s.call('POST', '/api/v2/search', { key, body: { query, limit } });
    assert.equal(r.status, 200, r.text);
    return r.json.data.items as { type: string; id: string; score: number }[];
  };

  for (const [query, id] of FIRST) {
    it(`"${query}" → ${id} first`, async () => {
      const items = await search(query);
      assert.equal(items[0]?.id, id, JSON.stringify(items.slice(0, 4).map((i) => [i.id, i.score])));
      assert.equal(items[0]?.type, 'capability');
    });
  }

  it('the screenshot providers follow the capability', async () => {
    const items = await search('take a screenshot of a website');
    const endpoints = items.filter((i) => i.type === 'endpoint').map((i) => i.id);
    assert.ok(endpoints.includes('shot_a.screenshot'), JSON.stringify(endpoints));
    const capAt = items.findIndex((i) => i.id === 'screenshot');
    for (const ep of ['shot_a.screenshot', 'browser_a.screenshot', 'crawler_a.screenshot']) assert.ok(items.findIndex((i) => i.id === ep) > capAt, ep);
  });

  it('stop words alone match nothing; a v1-only job is not answered with unrelated items', async () => {
    assert.deepEqual(await search('how to do it for me'), []);
    const pdf = await search('convert to pdf');
    assert.ok(!pdf.some((i) => /autocomplete|news|places/.test(i.id)), JSON.stringify(pdf.map((i) => i.id)));
  });
});
