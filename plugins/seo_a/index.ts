/**
 * seo_a (DataForSEO-compatible API, contracts §2): business reviews through the provider's
 * asynchronous task flow (`seo_a.engine_reviews`, serving `get_engine_reviews` behind
 * `POST /api/v1/get-engine-reviews`, spec §4.4) and keyword ideas from its Labs live API
 * (`seo_a.labs_engine_keyword_ideas`, serving `keyword_ideas`). HTTP Basic auth (issue 14).
 */
import { defineEndpoint, definePlugin, implement, perUnit } from '../../core/sdk.js';
import { IDEAS_PER_PAGE, getEngineReviews, keywordIdeas, keywordIdeasCost } from '../../core/catalogue.js';
import { locationFields, providerLanguage, runLive, runTask } from './client.js';
import { IdeasInput, IdeasOutput, ReviewsInput, ReviewsOutput } from './schemas.js';

const config = {
  baseUrl: { type: 'url', description: 'seo_a API base URL.', default: 'https://api.dataforseo.com' },
  login: { type: 'string', description: 'seo_a API login (HTTP Basic user).', required: true },
  password: { type: 'secret', description: 'seo_a API password (HTTP Basic password).', required: true },
  pollIntervalMs: { type: 'integer', description: 'First wait before polling a reviews task, ms; later waits grow ×1.5 up to 8× this.', min: 10, max: 60_000, default: 2000 },
  taskTimeoutMs: { type: 'integer', description: 'Longest wait for a reviews task to be ready, ms; then it is abandoned (502).', min: 1000, max: 300_000, default: 120_000 },
} as const;

/** spec §4.4 defaults. */
const DEFAULT_REVIEWS = 10;
const DEFAULT_LOCATION = 'London,England,United Kingdom';

const reviews = defineEndpoint({
  operation: 'engine_reviews',
  title: 'seo_a engine reviews',
  summary: "Reviews of a business from the engine's maps data (asynchronous task: posted, polled until ready).",
  tags: ['reviews', 'maps', 'business', 'ratings', 'seo'],
  input: ReviewsInput,
  output: ReviewsOutput,
  cost: perUnit({ unit: 'reviews', credits: 50, per: 10, max: (i: { depth?: number }) => i.depth ?? DEFAULT_REVIEWS, note: '50 credits per 10 reviews returned, rounded up' }),
  // Beyond the longest SEO_A_TASK_TIMEOUT_MS, so the task deadline (a clear 502) comes first.
  timeoutMs: 320_000,
  validate: (i) => (i.keyword || i.cid || i.place_id ? undefined : 'Either keyword, cid, or place_id must be provided'),
  examples: [{ title: 'Ten newest reviews by place ID', input: { place_id: 'ChIJN1t_tDeuEmsRUsoyG83frY4', depth: 10, sort_by: 'newest', language_code: 'en', location_name: 'London,England,United Kingdom' } }],
  async run(input, ctx) {
    const depth = input.depth ?? DEFAULT_REVIEWS;
    const task = {
      keyword: input.keyword,
      cid: input.cid,
      place_id: input.place_id,
      ...(input.location_code !== undefined ? { location_code: input.location_code } : input.location_coordinate ? { location_coordinate: input.location_coordinate } : { location_name: input.location_name ?? DEFAULT_LOCATION }),
      language_code: providerLanguage(input.language_code ?? 'en'),
      depth,
      sort_by: input.sort_by ?? 'relevant',
    };
    const result = await runTask(ctx, 'business_data/google/reviews', Object.fromEntries(Object.entries(task).filter(([, v]) => v !== undefined)), 'Failed to fetch engine reviews');
    ctx.setNative(result);
    // A business without reviews comes back with `items: null`; never more than asked is passed on (or charged).
    const items = (Array.isArray(result.items) ? result.items : []).slice(0, depth);
    ctx.usage.add('reviews', items.length);
    return { ...result, items_count: items.length, items } as never;
  },
});

const ideas = defineEndpoint({
  operation: 'labs_engine_keyword_ideas',
  title: 'seo_a keyword ideas',
  summary: 'Keyword ideas for seed keywords with search volume, competition, CPC and monthly searches (live; paged with limit and offset).',
  tags: ['keywords', 'keyword ideas', 'seo', 'search volume', 'cpc'],
  input: IdeasInput,
  output: IdeasOutput,
  cost: keywordIdeasCost,
  validate: (i) => (i.location_name || i.location_code ? undefined : 'Either location_name or location_code must be provided'),
  examples: [{ title: 'Ideas around a seed in the US', input: { keywords: ['espresso machine'], location_code: 2840, language_code: 'en', limit: 20 } }],
  async run(input, ctx) {
    const limit = input.limit ?? IDEAS_PER_PAGE;
    const task = { ...input, keywords: input.keywords.map((k) => k.trim().toLowerCase()), language_code: input.language_code ? providerLanguage(input.language_code) : undefined, limit };
    const result = await runLive(ctx, '/v3/dataforseo_labs/google/keyword_ideas/live', Object.fromEntries(Object.entries(task).filter(([, v]) => v !== undefined)), 'Failed to fetch keyword ideas');
    ctx.setNative(result);
    const items = (Array.isArray(result.items) ? result.items : []).slice(0, limit);
    ctx.usage.add('ideas', items.length);
    return { ...result, items_count: items.length, items } as never;
  },
});

type Idea = { keyword: string; keyword_info?: Record<string, any> | null; keyword_properties?: { keyword_difficulty?: number | null } | null; search_intent_info?: { main_intent?: string | null } | null };
const num = (v: unknown) => (typeof v === 'number' ? v : null);

export default definePlugin({
  id: 'seo_a',
  apiVersion: 1,
  title: 'seo_a (DataForSEO-compatible API)',
  summary: 'Search-engine business reviews (asynchronous tasks) and keyword ideas with volumes and CPC.',
  tags: ['seo', 'reviews', 'keywords', 'maps', 'provider'],
  config,
  endpoints: [reviews, ideas],
  implements: [
    implement(getEngineReviews, reviews, {
      mapInput: (i) => ({
        ...(i.keyword ? { keyword: i.keyword } : {}),
        ...(i.cid ? { cid: i.cid } : {}),
        ...(i.placeId ? { place_id: i.placeId } : {}),
        ...locationFields(i.location ?? DEFAULT_LOCATION),
        language_code: i.language ?? 'en',
        depth: i.reviews ?? DEFAULT_REVIEWS,
        sort_by: i.sortBy ?? 'relevant',
      }) as never,
    }),
    implement(keywordIdeas, ideas, {
      mapInput: (i) => ({ keywords: i.keywords, ...locationFields(i.location ?? 'United States'), ...(i.language ? { language_code: i.language } : {}), limit: i.limit ?? IDEAS_PER_PAGE, ...(i.offset !== undefined ? { offset: i.offset } : {}) }) as never,
      mapOutput: (o) => ({
        seedKeywords: o.seed_keywords,
        locationCode: num(o.location_code),
        languageCode: typeof o.language_code === 'string' ? o.language_code : null,
        total: o.total_count,
        offset: o.offset,
        items: (o.items as Idea[]).map((it) => {
          const k = it.keyword_info ?? {};
          return {
            keyword: it.keyword,
            searchVolume: num(k.search_volume),
            competition: num(k.competition),
            competitionLevel: typeof k.competition_level === 'string' ? k.competition_level : null,
            cpc: num(k.cpc),
            lowTopOfPageBid: num(k.low_top_of_page_bid),
            highTopOfPageBid: num(k.high_top_of_page_bid),
            monthlySearches: (Array.isArray(k.monthly_searches) ? k.monthly_searches : []).map((m: { year: number; month: number; search_volume?: number | null }) => ({ year: m.year, month: m.month, searchVolume: num(m.search_volume) })),
            ...(it.keyword_properties ? { keywordDifficulty: num(it.keyword_properties.keyword_difficulty) } : {}),
            ...(it.search_intent_info ? { searchIntent: it.search_intent_info.main_intent ?? null } : {}),
          };
        }),
      }),
    }),
  ],
});
