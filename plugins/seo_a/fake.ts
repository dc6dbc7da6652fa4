/**
 * A loopback fake of the seo_a API (DataForSEO v3, contracts §2) for tests: HTTP Basic auth (401
 * with envelope 40100 otherwise), JSON arrays of tasks, the envelope on every answer with its
 * internal status codes, the reviews Standard flow (task_post → task_get answering 40602 "Task In
 * Queue." for `pendingPolls` polls, then the result with min(depth, available) reviews) and the
 * Labs keyword-ideas live call. Built on the fake kit: its rate limit is 40202 in a 200 envelope,
 * an empty account HTTP 402; `task` ends tasks with an error (40101 / 40102) or never.
 */
import { randomUUID } from 'node:crypto';
import { fakeUpstream, type FakeRequest, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';

interface State {
  /** How reviews tasks end: the result, a task error (40101), no results (40102), or never ready. */
  task: 'ok' | 'task_error' | 'no_results' | 'never_ready';
  /** task_get answers 40602 this many times before the result (default 1). */
  pendingPolls: number;
  /** Reviews the business has (a task returns min(depth, available)). */
  available: number;
  /** task_get polls received per task id. */
  polls: Map<string, number>;
}

/** A running fake; `apiKey` is the Basic-auth password. */
export type SeoAFake = FakeUpstream<State>;
type Route = FakeRoute<State>;

/** Locations the fake knows (name → code), as the provider's list would (contracts §2a). */
const LOCATIONS: Record<string, number> = { 'London,England,United Kingdom': 1006886, 'United Kingdom': 2826, 'United States': 2840, 'Austin,Texas,United States': 1026201, Germany: 2276 };
const CODES = new Set(Object.values(LOCATIONS));

const envelope = (tasks: unknown[], status = 20000, message = 'Ok.') => ({ version: '0.1.20240801', status_code: status, status_message: message, time: '0.05 sec.', cost: 0.00075, tasks_count: tasks.length, tasks_error: tasks.filter((t: any) => t.status_code >= 40000).length, tasks });
const taskOf = (id: string, path: string[], data: unknown, status: number, message: string, result: unknown[] | null) => ({ id, status_code: status, status_message: message, time: '0.01 sec.', cost: 0, result_count: result?.length ?? 0, path, data, result });

/** Why a reviews or ideas task is refused (40501 Invalid Field), or undefined. */
function invalidTask(t: any, kind: 'reviews' | 'ideas'): string | undefined {
  if (!t || typeof t !== 'object') return 'Invalid Field: task.';
  if (t.location_name !== undefined && !(t.location_name in LOCATIONS)) return "Invalid Field: 'location_name'.";
  if (t.location_code !== undefined && !CODES.has(t.location_code)) return "Invalid Field: 'location_code'.";
  if (t.location_name === undefined && t.location_code === undefined && t.location_coordinate === undefined) return "Invalid Field: 'location_name'.";
  if (t.language_code !== undefined && !/^[a-z]{2}(-[A-Z]{2})?$/.test(t.language_code)) return "Invalid Field: 'language_code'.";
  if (kind === 'reviews') {
    if (!t.keyword && !t.cid && !t.place_id) return "Invalid Field: 'keyword'.";
    if (t.language_code === undefined && t.language_name === undefined) return "Invalid Field: 'language_code'.";
    if (t.depth !== undefined && (!Number.isInteger(t.depth) || t.depth < 1 || t.depth > 4490)) return "Invalid Field: 'depth'.";
    if (t.sort_by !== undefined && !['relevant', 'newest', 'highest_rating', 'lowest_rating'].includes(t.sort_by)) return "Invalid Field: 'sort_by'.";
  } else {
    if (!Array.isArray(t.keywords) || t.keywords.length < 1 || t.keywords.length > 200) return "Invalid Field: 'keywords'.";
    if (t.limit !== undefined && (!Number.isInteger(t.limit) || t.limit < 1 || t.limit > 1000)) return "Invalid Field: 'limit'.";
  }
  return undefined;
}

function review(i: number) {
  return {
    type: 'google_reviews_search', rank_group: i + 1, rank_absolute: i + 1, position: 'right', xpath: `/html/body/div[${i + 1}]`,
    review_text: `Review ${i + 1}: great.`, original_review_text: null, original_language: null, time_ago: 'a week ago', timestamp: '2024-07-25 09:00:00 +00:00',
    rating: { rating_type: 'Max5', value: 5 - (i % 5), votes_count: null, rating_max: 5 }, reviews_count: 12, photos_count: i % 3, local_guide: i % 2 === 0,
    profile_name: `Reviewer ${i + 1}`, profile_url: `https://maps.example/contrib/${i + 1}`, review_url: `https://maps.example/review/${i + 1}`, profile_image_url: `https://img.example/${i + 1}.png`,
    owner_answer: i === 0 ? 'Thank you!' : null, original_owner_answer: null, owner_time_ago: i === 0 ? '5 days ago' : null, owner_timestamp: i === 0 ? '2024-07-27 09:00:00 +00:00' : null,
    review_id: `ChZDSUhN${i + 1}`, images: i === 0 ? [{ type: 'images_element', alt: 'shop', url: 'https://maps.example/photo/1', image_url: 'https://img.example/photo1.jpg' }] : null, review_highlights: null,
  };
}

function reviewsResult(t: any, available: number) {
  const n = Math.min(t.depth ?? 10, available);
  return {
    keyword: t.keyword ?? null, type: 'reviews', se_domain: 'google.co.uk', location_code: t.location_code ?? LOCATIONS[t.location_name] ?? 2826, language_code: t.language_code ?? 'en',
    check_url: 'https://www.google.co.uk/search?q=shop', datetime: '2024-08-01 10:00:00 +00:00', title: t.keyword ?? 'Hedonism Wines', sub_title: '3-7 Davies St, London',
    rating: { rating_type: 'Max5', value: 4.7, votes_count: available, rating_max: 5 }, feature_id: '0x48:0x1', place_id: t.place_id ?? 'ChIJfake', cid: t.cid ?? '194604053573767737',
    reviews_count: available, items_count: n, items: n === 0 ? null : Array.from({ length: n }, (_, i) => review(i)),
  };
}

function ideasResult(t: any) {
  const total = 250;
  const offset = t.offset ?? 0;
  const limit = t.limit ?? 700;
  const seed = String(t.keywords[0]);
  const count = Math.max(0, Math.min(limit, total - offset));
  const items = Array.from({ length: count }, (_, i) => ({
    se_type: 'google', keyword: `${seed} idea ${offset + i + 1}`, location_code: t.location_code ?? LOCATIONS[t.location_name] ?? 2840, language_code: t.language_code ?? 'en',
    keyword_info: { se_type: 'google', last_updated_time: '2024-08-01', competition: 0.5, competition_level: 'MEDIUM', cpc: 1.25, search_volume: 1000 - i, low_top_of_page_bid: 0.5, high_top_of_page_bid: 2.5, categories: [1], monthly_searches: [{ year: 2024, month: 7, search_volume: 900 }, { year: 2024, month: 6, search_volume: 1100 }], search_volume_trend: { monthly: 0, quarterly: 0, yearly: 0 } },
    keyword_properties: { se_type: 'google', core_keyword: null, keyword_difficulty: 40 }, serp_info: null, avg_backlinks_info: null, search_intent_info: { se_type: 'google', main_intent: 'commercial', foreign_intent: null },
  }));
  return { se_type: 'google', seed_keywords: t.keywords, location_code: items[0]?.location_code ?? 2840, language_code: t.language_code ?? 'en', total_count: total, items_count: count, offset, offset_token: 'tok', items };
}

/** Starts the fake on 127.0.0.1 with a random port. */
export function startFake(opts: { login?: string; password?: string } = {}): Promise<SeoAFake> {
  const login = opts.login ?? 'seo-login@example.com';
  const tasks = new Map<string, any>();
  const path = (req: FakeRequest) => req.path.split('/').filter(Boolean);
  const taskPost: Route = (req) => {
    const out = req.body.map((t: any) => {
      const id = randomUUID();
      const why = invalidTask(t, 'reviews');
      if (!why) tasks.set(id, t);
      return taskOf(id, path(req), { api: 'business_data', function: 'reviews', se: 'google', ...t }, why ? 40501 : 20100, why ?? 'Task Created.', null);
    });
    return { json: envelope(out) };
  };
  const taskGet: Route = (req, fake) => {
    const id = req.params.id!;
    const t = tasks.get(id);
    if (!t) return { json: envelope([taskOf(id, path(req), {}, 40401, 'Task Not Found.', null)]) };
    const n = (fake.polls.get(id) ?? 0) + 1;
    fake.polls.set(id, n);
    const answer = (status: number, message: string, result: unknown[] | null) => ({ json: envelope([taskOf(id, path(req), { api: 'business_data', function: 'reviews', se: 'google', ...t }, status, message, result)]) });
    if (fake.task === 'never_ready' || n <= fake.pendingPolls) return answer(40602, 'Task In Queue.', null);
    if (fake.task === 'task_error') return answer(40101, 'Internal SE Server Error.', null);
    if (fake.task === 'no_results') return answer(40102, 'No Search Results.', null);
    return answer(20000, 'Ok.', [reviewsResult(t, fake.available)]);
  };
  const ideas: Route = (req) => {
    const t = req.body[0];
    const why = invalidTask(t, 'ideas');
    const data = { api: 'dataforseo_labs', function: 'keyword_ideas', se: 'google', ...t };
    return { json: envelope([taskOf(randomUUID(), path(req), data, why ? 40501 : 20000, why ?? 'Ok.', why ? null : [ideasResult(t)])]) };
  };
  /** A POST must carry a non-empty array of tasks. */
  const tasksIn = (route: Route): Route => (req, fake) => (Array.isArray(req.body) && req.body.length > 0 ? route(req, fake) : { json: envelope([], 40000, 'Invalid request body.') });
  return fakeUpstream({
    apiKey: opts.password ?? 'seo-password',
    auth: (req, password) => req.headers.authorization === `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`,
    error: (status, message) => envelope([], status * 100, message),
    unauthorized: { status: 401, json: envelope([], 40100, 'You are not authorized to access this resource.') },
    rateLimited: { status: 200, json: envelope([], 40202, 'The rate-limit per minute has been exceeded.'), headers: { 'x-ratelimit-limit': '2000', 'x-ratelimit-remaining': '0' } },
    outOfCredits: { status: 402, json: envelope([], 40200, 'Payment Required.') },
    state: { task: 'ok', pendingPolls: 1, available: 4490, polls: new Map() } as State,
    env: ({ url, apiKey }) => ({ SEO_A_BASE_URL: url, SEO_A_LOGIN: login, SEO_A_PASSWORD: apiKey, SEO_A_POLL_INTERVAL_MS: '20', SEO_A_TASK_TIMEOUT_MS: '5000' }),
    routes: {
      'POST /v3/business_data/google/reviews/task_post': tasksIn(taskPost),
      'GET /v3/business_data/google/reviews/task_get/:id': taskGet,
      'POST /v3/dataforseo_labs/google/keyword_ideas/live': tasksIn(ideas),
    },
  });
}
