/**
 * Route tables of a fake upstream (issue 29, fake kit): `'POST /v2/crawl/:id'` keys matched against
 * a request's method and path, with `:name` segments captured and a trailing `*` matching the rest.
 */

/** A route's answer: a status (default 200), a JSON body, text, or bytes, and extra headers. */
export interface FakeAnswer {
  status?: number;
  /** Sent as `application/json`. */
  json?: unknown;
  /** Sent as `text/plain` unless `headers['content-type']` says otherwise. */
  text?: string;
  /** Raw bytes; give `headers['content-type']`. */
  bytes?: Uint8Array;
  headers?: Record<string, string>;
}

/** One request as a fake sees it, and as its request log records it. */
export interface FakeRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  /** Path and query string, as sent. */
  url: string;
  /** `:name` segments of the matched route. */
  params: Record<string, string>;
  query: Record<string, string>;
  /** Lower-cased names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The body parsed as JSON, or `undefined` (empty or not JSON). */
  body: any;
  raw: Buffer;
  /** When it arrived (`Date.now()`), for tests of pacing. */
  at: number;
}

/** A compiled route key. */
export interface RoutePattern {
  method: string;
  segments: string[];
}

/** Parses `'GET /a/:id'` (method `*` matches any). */
export function parseRoute(key: string): RoutePattern {
  const [method, path] = key.trim().split(/\s+/, 2);
  if (!method || !path?.startsWith('/')) throw new Error(`fake route '${key}': write it as '<METHOD> /path'.`);
  return { method: method.toUpperCase(), segments: path.split('/').filter(Boolean) };
}

/** The params of `path` when it matches `route` (method aside), else undefined. */
export function matchPath(route: RoutePattern, path: string): Record<string, string> | undefined {
  const parts = path.split('/').filter(Boolean);
  const params: Record<string, string> = {};
  for (let i = 0; i < route.segments.length; i++) {
    const seg = route.segments[i]!;
    if (seg === '*') {
      params['*'] = parts.slice(i).join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    if (seg.startsWith(':')) params[seg.slice(1)] = decodeURIComponent(part);
    else if (seg !== part) return undefined;
  }
  return parts.length === route.segments.length ? params : undefined;
}

/** A test of logged requests: `'POST'` matches the method, `'POST /a/:id'` method and path (`*` any method). */
export function requestMatcher(match: string): (req: FakeRequest) => boolean {
  const key = match.trim();
  if (!key.includes(' ')) return (req) => key === '*' || req.method === key.toUpperCase();
  const route = parseRoute(key);
  return (req) => (route.method === '*' || route.method === req.method) && matchPath(route, req.path) !== undefined;
}
