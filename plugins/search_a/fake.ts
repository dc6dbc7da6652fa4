/**
 * A loopback fake of the search_a API (Serper-compatible, contracts §1) for tests, as strict as the
 * contract: `POST /<endpoint>` only (405 otherwise) for the ten endpoints, the key in `X-API-KEY`
 * (403 `{"message":"Unauthorized.","statusCode":403}` otherwise), a JSON body sent as
 * `application/json` (400 for another media type) or parameters in the query string (body wins),
 * the documented validation (400 for a missing `q`, mistyped fields or a `safe` other than
 * `active`/`off`) and the documented response shapes built from the request. Built on the fake
 * kit: a refused key is its 403, an exhausted account its 400 `Not enough credits`.
 */
import { fakeUpstream, type FakeRoute, type FakeUpstream } from '../../core/testing/index.js';

/** A running fake. */
export type SearchAFake = FakeUpstream;

const ENDPOINTS = new Set(['search', 'news', 'places', 'maps', 'autocomplete', 'images', 'videos', 'shopping', 'scholar', 'patents']);

type Params = Record<string, unknown>;

/** The query as a path segment of the answers' links. */
const slug = (q: string) => q.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'q';

/** Validates parameters like the provider does; returns the 400 message or undefined. */
function invalid(p: Params): string | undefined {
  if (typeof p.q !== 'string' || p.q.trim() === '') return 'Missing query parameter';
  for (const f of ['gl', 'hl', 'location', 'tbs', 'll', 'placeId', 'cid', 'cites', 'safe']) {
    if (p[f] !== undefined && typeof p[f] !== 'string') return `Invalid ${f} parameter`;
  }
  for (const f of ['num', 'page', 'as_ylo', 'as_yhi']) {
    if (p[f] !== undefined && !Number.isInteger(p[f])) return `Invalid ${f} parameter`;
  }
  if (p.num !== undefined && ((p.num as number) < 1 || (p.num as number) > 100)) return 'num must be between 1 and 100';
  if (p.page !== undefined && (p.page as number) < 1) return 'page must be at least 1';
  if (p.autocorrect !== undefined && typeof p.autocorrect !== 'boolean') return 'Invalid autocorrect parameter';
  if (p.safe !== undefined && p.safe !== 'active' && p.safe !== 'off') return 'safe must be active or off';
  return undefined;
}

/** Query-string values arrive as text; numbers and booleans are parsed like the provider does. */
function fromQuery(sp: URLSearchParams): Params {
  const out: Params = {};
  for (const [k, v] of sp) out[k] = /^\d+$/.test(v) && k !== 'q' && k !== 'cid' ? Number(v) : v === 'true' ? true : v === 'false' ? false : v;
  return out;
}

/** The documented response of `endpoint` for parameters `p` (contracts §1 "Responses"). */
export function answer(endpoint: string, p: Params, linkOf: (position: number, slug: string) => string = (position, s) => `https://site${position}.example/${s}`): Record<string, unknown> {
  const q = String(p.q);
  const num = endpoint === 'autocomplete' ? 0 : Math.min((p.num as number) ?? 10, 100);
  const page = (p.page as number) ?? 1;
  const searchParameters: Params = { q, gl: p.gl ?? 'us', hl: p.hl ?? 'en', type: endpoint, engine: 'google' };
  if (endpoint !== 'autocomplete') Object.assign(searchParameters, { num: p.num ?? 10, page, autocorrect: p.autocorrect ?? true });
  if (p.location !== undefined) searchParameters.location = p.location;
  if (p.tbs !== undefined) searchParameters.tbs = p.tbs;
  const s = slug(q);
  const items = (f: (i: number, position: number) => Params) => Array.from({ length: num }, (_, i) => f(i, (page - 1) * num + i + 1));
  const out: Record<string, unknown> = { searchParameters };
  switch (endpoint) {
    case 'search':
      out.knowledgeGraph = { title: q, type: 'Topic', description: `About ${q}.` };
      out.organic = items((i, position) => ({ title: `${q} — result ${position}`, link: linkOf(position, s), snippet: `A page about ${q}.`, position, ...(i === 0 ? { sitelinks: [{ title: 'About', link: `https://site${position}.example/about` }] } : {}) }));
      out.peopleAlsoAsk = [{ question: `What is ${q}?`, snippet: `${q} is a topic.`, title: `What is ${q}`, link: `https://answers.example/${s}` }];
      out.relatedSearches = [{ query: `${q} news` }, { query: `${q} meaning` }];
      break;
    case 'news':
      out.news = items((i, position) => ({ title: `${q}: story ${position}`, link: `https://news${i % 3}.example/${s}/${position}`, snippet: `Latest on ${q}.`, date: `${position} hours ago`, source: `News ${i % 3}`, imageUrl: `https://news${i % 3}.example/img/${position}.jpg`, position }));
      break;
    case 'places':
    case 'maps':
      out.places = items((i, position) => ({ position, title: `${q} place ${position}`, address: `${position} Main St`, latitude: 30.2672 + i / 1000, longitude: -97.7431 - i / 1000, rating: 4.5, ratingCount: 100 + i, category: q, phoneNumber: `+1 512-555-01${String(position).padStart(2, '0')}`, website: `https://place${position}.example`, cid: String(1_000_000_000 + position), ...(endpoint === 'maps' ? { type: q, types: [q], placeId: `ChIJ${s}${position}`, openingHours: { Monday: '9 AM–5 PM' }, priceLevel: '$$' } : {}) }));
      if (endpoint === 'maps') {
        out.ll = typeof p.ll === 'string' ? p.ll : '@30.2672,-97.7431,14z';
        // A place ID or CID names one place: the map answers that place alone, carrying the id asked for.
        if (p.placeId !== undefined || p.cid !== undefined) {
          const one = { ...(out.places as Params[])[0], ...(p.placeId !== undefined ? { placeId: p.placeId } : {}), ...(p.cid !== undefined ? { cid: p.cid } : {}) };
          out.places = [one];
        }
      }
      break;
    case 'autocomplete':
      out.suggestions = ['', ' near me', ' meaning', ' online', ' for beginners'].map((suffix) => ({ value: `${q}${suffix}` }));
      break;
    case 'images':
      out.images = items((_i, position) => ({ title: `${q} image ${position}`, imageUrl: `https://img.example/${s}/${position}.jpg`, imageWidth: 1200, imageHeight: 800, thumbnailUrl: `https://thumb.example/${s}/${position}.jpg`, thumbnailWidth: 300, thumbnailHeight: 200, source: 'Img Example', domain: 'img.example', link: `https://img.example/${s}`, googleUrl: `https://www.google.com/imgres?imgurl=${position}`, position }));
      break;
    case 'videos':
      out.videos = items((_i, position) => ({ title: `${q} video ${position}`, link: `https://video.example/watch?v=${s}${position}`, snippet: `A video about ${q}.`, imageUrl: `https://video.example/thumb/${position}.jpg`, duration: `${position}:30`, source: 'Video Example', channel: `Channel ${position}`, date: 'Jan 1, 2024', position }));
      break;
    case 'shopping':
      out.shopping = items((_i, position) => ({ title: `${q} model ${position}`, source: `Shop ${position}`, link: `https://shop${position}.example/${s}`, price: `$${(position * 9.99).toFixed(2)}`, delivery: 'Free delivery', imageUrl: `https://shop${position}.example/${s}.jpg`, rating: 4.2, ratingCount: 50 * position, productId: `${position}${position}`, position }));
      break;
    case 'scholar':
      out.organic = items((_i, position) => ({ title: `On ${q} (${position})`, link: `https://papers.example/${s}/${position}`, publicationInfo: `A Author, B Author - Journal, ${(p.as_ylo as number) ?? 2020}`, snippet: `We study ${q}.`, year: (p.as_ylo as number) ?? 2020, citedBy: 100 - position, id: `cluster${position}` }));
      break;
    case 'patents':
      out.organic = items((_i, position) => ({ title: `System for ${q} ${position}`, snippet: `A method relating to ${q}.`, link: `https://patents.example/US${10_000_000 + position}B2`, priorityDate: '2019-01-01', filingDate: '2019-06-01', publicationDate: '2021-01-01', inventor: 'Jane Inventor', assignee: 'Example Corp', publicationNumber: `US${10_000_000 + position}B2`, language: 'en' }));
      break;
  }
  out.credits = endpoint === 'autocomplete' ? 1 : num > 10 ? 2 : 1;
  return out;
}

/** Starts the fake on 127.0.0.1 with a random port; `linkOf` makes the organic result links. */
export function startFake(opts: { apiKey?: string; linkOf?: (position: number, slug: string) => string } = {}): Promise<SearchAFake> {
  const search: FakeRoute<{}> = ({ params, query, headers, raw, body }, fake) => {
    if (!ENDPOINTS.has(params.endpoint!)) return fake.error(404, 'Not found');
    // Parameters may come in the query string alone (no body); a body must be declared JSON.
    if (raw.length && !/^application\/json\s*(;|$)/i.test(headers['content-type'] ?? '')) return fake.error(400, 'Content-Type must be application/json');
    if (raw.length && (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body))) return fake.error(400, 'Invalid JSON body');
    const p: Params = { ...fromQuery(new URLSearchParams(query)), ...(body ?? {}) };
    const why = invalid(p);
    return why ? fake.error(400, why) : { json: answer(params.endpoint!, p, opts.linkOf) };
  };
  return fakeUpstream({
    apiKey: opts.apiKey ?? 'search-a-test-key',
    auth: { header: 'x-api-key' },
    error: (statusCode, message) => ({ message, statusCode }),
    unauthorized: { status: 403, json: { message: 'Unauthorized.', statusCode: 403 } },
    outOfCredits: { status: 400, json: { message: 'Not enough credits', statusCode: 400 } },
    env: ({ url, apiKey }) => ({ SEARCH_A_BASE_URL: url, SEARCH_A_API_KEY: apiKey }),
    routes: { 'POST /:endpoint': search, '* /:endpoint': (_req, fake) => fake.error(405, 'Method not allowed') },
  });
}
