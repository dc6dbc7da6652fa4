/**
 * A loopback fake of the seo_a API (DataForSEO v3, contracts §2) on the fake kit: HTTP Basic auth
 * (401 with envelope 40100 otherwise), JSON arrays of tasks, the envelope on every answer with its
 * internal status codes, the reviews Standard flow (task_post → task_get answering 40602 "Task In
 * Queue." for `pendingPolls` polls, then min(depth, available) reviews) and the Labs keyword-ideas
 * live call; answers from `recorded/`. Its rate limit is 40202 in a 200 envelope, an empty account
 * HTTP 402; `task` ends reviews tasks with an error (40101 / 40102) or never.
 */
import { randomUUID } from 'node:crypto';
import { Type } from '../../core/sdk.js';
import { fakeUpstream, firstViolation, literals, recordings, type FakeRequest, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';

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

const recorded = recordings(import.meta.url);
/** Locations the fake knows (name → code), as the provider's list would (contracts §2a). */
const LOCATIONS: Record<string, number> = { 'London,England,United Kingdom': 1006886, 'United Kingdom': 2826, 'United States': 2840, 'Austin,Texas,United States': 1026201, Germany: 2276 };
/** Every field the provider refuses with 40501 "Invalid Field: '<field>'." */
const bad = { error: "Invalid Field: '{{path}}'." };
const Where = { location_name: Type.Optional(literals(Object.keys(LOCATIONS), bad.error)), location_code: Type.Optional(literals(Object.values(LOCATIONS), bad.error)), language_code: Type.Optional(Type.String({ pattern: '^[a-z]{2}(-[A-Z]{2})?$', ...bad })) };
const Reviews = Type.Object({ ...Where, depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 4490, ...bad })), sort_by: Type.Optional(literals(['relevant', 'newest', 'highest_rating', 'lowest_rating'], bad.error)) });
const Ideas = Type.Object({ ...Where, keywords: Type.Array(Type.String(), { minItems: 1, maxItems: 200, ...bad }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, ...bad })) });
/** How a finished reviews task ends when `task` says it fails. */
const ENDINGS: Record<string, [number, string]> = { task_error: [40101, 'Internal SE Server Error.'], no_results: [40102, 'No Search Results.'] };

/** Why a task is refused (40501), or undefined: the rules between fields (a task that is no object has no location), then each field. */
function invalidTask(t: any, kind: 'reviews' | 'ideas'): string | undefined {
  if (t?.location_name === undefined && t?.location_code === undefined && t?.location_coordinate === undefined) return "Invalid Field: 'location_name'.";
  if (kind === 'reviews' && !t.keyword && !t.cid && !t.place_id) return "Invalid Field: 'keyword'.";
  if (kind === 'reviews' && t.language_code === undefined && t.language_name === undefined) return "Invalid Field: 'language_code'.";
  return firstViolation(kind === 'reviews' ? Reviews : Ideas, t);
}

const envelope = (tasks: { status_code: number }[], status = 20000, message = 'Ok.') => recorded('envelope', { status, message, tasks, count: tasks.length, errors: tasks.filter((t) => t.status_code >= 40000).length });
const taskOf = (req: FakeRequest, id: string, data: object, status: number, message: string, result: unknown[] | null) => recorded('task', { id, path: req.path.split('/').filter(Boolean), data, status, message, result, count: result?.length ?? 0 });
const reviewsData = (t: object) => ({ api: 'business_data', function: 'reviews', se: 'google', ...t });

function reviewsResult(t: any, available: number) {
  const count = Math.min(t.depth ?? 10, available);
  const review = (i: number) => ({ ...recorded('review', { n: i + 1, stars: 5 - (i % 5), photos: i % 3, guide: i % 2 === 0 }), ...(i === 0 ? recorded('review-answered') : {}) });
  const items = count === 0 ? null : Array.from({ length: count }, (_, i) => review(i));
  return recorded('reviews-result', { keyword: t.keyword ?? null, title: t.keyword ?? 'Hedonism Wines', location: t.location_code ?? LOCATIONS[t.location_name] ?? 2826, language: t.language_code ?? 'en', place: t.place_id ?? 'ChIJfake', cid: t.cid ?? '194604053573767737', available, count, items });
}

function ideasResult(t: any) {
  const [total, offset, location, language] = [250, t.offset ?? 0, t.location_code ?? LOCATIONS[t.location_name] ?? 2840, t.language_code ?? 'en'];
  const count = Math.max(0, Math.min(t.limit ?? 700, total - offset));
  const items = Array.from({ length: count }, (_, i) => recorded('idea', { keyword: `${t.keywords[0]} idea ${offset + i + 1}`, volume: 1000 - i, location, language }));
  return recorded('ideas-result', { seeds: t.keywords, location: count ? location : 2840, language, total, count, offset, items });
}

/** Starts the fake on 127.0.0.1 with a random port. */
export function startFake(opts: { login?: string; password?: string } = {}): Promise<SeoAFake> {
  const login = opts.login ?? 'seo-login@example.com';
  const tasks = new Map<string, object>();
  const taskPost: FakeRoute<State> = (req) => ({
    json: envelope(req.body.map((t: any) => {
      const [id, why] = [randomUUID(), invalidTask(t, 'reviews')];
      if (!why) tasks.set(id, t);
      return taskOf(req, id, reviewsData(t), why ? 40501 : 20100, why ?? 'Task Created.', null);
    })),
  });
  const taskGet: FakeRoute<State> = (req, fake) => {
    const [id, t] = [req.params.id!, tasks.get(req.params.id!)];
    if (!t) return { json: envelope([taskOf(req, id, {}, 40401, 'Task Not Found.', null)]) };
    const n = (fake.polls.get(id) ?? 0) + 1;
    fake.polls.set(id, n);
    const answer = (status: number, message: string, result: unknown[] | null = null) => ({ json: envelope([taskOf(req, id, reviewsData(t), status, message, result)]) });
    if (fake.task === 'never_ready' || n <= fake.pendingPolls) return answer(40602, 'Task In Queue.');
    return ENDINGS[fake.task] ? answer(...ENDINGS[fake.task]!) : answer(20000, 'Ok.', [reviewsResult(t, fake.available)]);
  };
  const ideas: FakeRoute<State> = (req) => {
    const [t, why] = [req.body[0], invalidTask(req.body[0], 'ideas')];
    return { json: envelope([taskOf(req, randomUUID(), { api: 'dataforseo_labs', function: 'keyword_ideas', se: 'google', ...t }, why ? 40501 : 20000, why ?? 'Ok.', why ? null : [ideasResult(t)])]) };
  };
  /** A POST must carry a non-empty array of tasks. */
  const tasksIn = (route: FakeRoute<State>): FakeRoute<State> => (req, fake) => (Array.isArray(req.body) && req.body.length > 0 ? route(req, fake) : { json: envelope([], 40000, 'Invalid request body.') });
  return fakeUpstream({
    apiKey: opts.password ?? 'seo-password',
    auth: { basic: login },
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
