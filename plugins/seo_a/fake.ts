/**
 * A loopback fake of the seo_a API (DataForSEO v3, contracts §2) for tests: HTTP Basic auth (401
 * with envelope 40100 otherwise), JSON arrays of tasks, the envelope on every answer with its
 * internal status codes, the reviews Standard flow (task_post → task_get answering 40602 "Task In
 * Queue." for `pendingPolls` polls, then the result with min(depth, available) reviews) and the
 * Labs keyword-ideas live call. `mode` makes it answer the documented faults: 40202 rate limit or
 * 50000 in a 200 envelope, HTTP 402/500, a task error (40101 / 40102), a task that is never
 * ready, or garbage.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveLoopback } from '../../core/sdk.js';

/** How the fake answers. */
export type SeoFakeMode = 'ok' | 'rate_limited' | 'internal_error' | 'payment_required' | 'server_error' | 'task_error' | 'no_results' | 'never_ready' | 'garbage';

/** A running fake. */
export interface SeoAFake {
  url: string;
  env: Record<string, string>;
  login: string;
  password: string;
  /** Every request: method, path, body and Authorization header. */
  requests: { method: string; path: string; body: any; auth: string }[];
  mode: SeoFakeMode;
  /** task_get answers 40602 this many times before the result (default 1). */
  pendingPolls: number;
  /** Reviews the business has (a task returns min(depth, available)). */
  available: number;
  /** task_get polls received per task id. */
  polls: Map<string, number>;
  /** Answers sent so far. */
  answered: number;
  close(): Promise<void>;
}

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

/** Reads a request body as JSON (`undefined` when empty or not JSON). */
async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}

/** Answers `status` with a JSON body. */
function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
  res.emit('answered');
}

/** Starts the fake on 127.0.0.1 with a random port. */
export async function startFake(opts: { login?: string; password?: string } = {}): Promise<SeoAFake> {
  const login = opts.login ?? 'seo-login@example.com';
  const password = opts.password ?? 'seo-password';
  const tasks = new Map<string, any>();
  const fake: SeoAFake = { url: '', env: {}, login, password, requests: [], mode: 'ok', pendingPolls: 1, available: 4490, polls: new Map(), answered: 0, close: async () => undefined };
  const server = await serveLoopback(async (req, res) => {
    res.once('answered', () => (fake.answered += 1));
    const json = await readJson(req);
    const path = new URL(req.url!, 'http://fake').pathname;
    const segments = path.split('/').filter(Boolean);
    fake.requests.push({ method: req.method!, path, body: json, auth: req.headers.authorization ?? '' });
    if (req.headers.authorization !== `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`) return sendJson(res, 401, envelope([], 40100, 'You are not authorized to access this resource.'));
    if (fake.mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html>Bad gateway</html>');
    }
    if (fake.mode === 'payment_required') return sendJson(res, 402, envelope([], 40200, 'Payment Required.'));
    if (fake.mode === 'server_error') return sendJson(res, 500, envelope([], 50000, 'Internal Error.'));
    if (fake.mode === 'rate_limited') return sendJson(res, 200, envelope([], 40202, 'The rate-limit per minute has been exceeded.'), { 'x-ratelimit-limit': '2000', 'x-ratelimit-remaining': '0' });
    if (fake.mode === 'internal_error') return sendJson(res, 200, envelope([], 50000, 'Internal Error.'));
    const post = req.method === 'POST';
    if (post && (!Array.isArray(json) || json.length === 0)) return sendJson(res, 200, envelope([], 40000, 'Invalid request body.'));
    if (post && path === '/v3/business_data/google/reviews/task_post') {
      const out = json.map((t: any) => {
        const id = randomUUID();
        const why = invalidTask(t, 'reviews');
        if (why) return taskOf(id, segments, { api: 'business_data', function: 'reviews', se: 'google', ...t }, 40501, why, null);
        tasks.set(id, t);
        return taskOf(id, segments, { api: 'business_data', function: 'reviews', se: 'google', ...t }, 20100, 'Task Created.', null);
      });
      return sendJson(res, 200, envelope(out));
    }
    if (!post && segments.slice(0, 5).join('/') === 'v3/business_data/google/reviews/task_get' && segments[5]) {
      const id = segments[5];
      const t = tasks.get(id);
      if (!t) return sendJson(res, 200, envelope([taskOf(id, segments, {}, 40401, 'Task Not Found.', null)]));
      const n = (fake.polls.get(id) ?? 0) + 1;
      fake.polls.set(id, n);
      const data = { api: 'business_data', function: 'reviews', se: 'google', ...t };
      if (fake.mode === 'never_ready' || n <= fake.pendingPolls) return sendJson(res, 200, envelope([taskOf(id, segments, data, 40602, 'Task In Queue.', null)]));
      if (fake.mode === 'task_error') return sendJson(res, 200, envelope([taskOf(id, segments, data, 40101, 'Internal SE Server Error.', null)]));
      if (fake.mode === 'no_results') return sendJson(res, 200, envelope([taskOf(id, segments, data, 40102, 'No Search Results.', null)]));
      return sendJson(res, 200, envelope([taskOf(id, segments, data, 20000, 'Ok.', [reviewsResult(t, fake.available)])]));
    }
    if (post && path === '/v3/dataforseo_labs/google/keyword_ideas/live') {
      const t = json[0];
      const why = invalidTask(t, 'ideas');
      const data = { api: 'dataforseo_labs', function: 'keyword_ideas', se: 'google', ...t };
      if (why) return sendJson(res, 200, envelope([taskOf(randomUUID(), segments, data, 40501, why, null)]));
      return sendJson(res, 200, envelope([taskOf(randomUUID(), segments, data, 20000, 'Ok.', [ideasResult(t)])]));
    }
    return sendJson(res, 404, envelope([], 40400, 'Not Found.'));
  });
  fake.url = server.url;
  fake.env = { SEO_A_BASE_URL: server.url, SEO_A_LOGIN: login, SEO_A_PASSWORD: password, SEO_A_POLL_INTERVAL_MS: '20', SEO_A_TASK_TIMEOUT_MS: '5000' };
  fake.close = () => server.close();
  return fake;
}
