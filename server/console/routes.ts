/**
 * The console (issue 26) at `/console`: the page and its bundle under a strict Content-Security-
 * Policy, sign-in and sign-out, and `/console/api/*`, which forwards a signed-in page's calls to
 * the public API (`/admin/*` for admins, `/api/v1/*` and `/api/v2/*` for key holders) with the
 * session's secret as the bearer token. The console is a client of that API: it reaches nothing
 * the API does not offer anyone holding the same token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { AuthError, ForbiddenError, InputError, NotFoundError, RateLimitedError } from '../../core/errors.js';
import { normaliseError } from '../hooks/body-errors.js';
import { consoleAssets } from './assets.js';
import { csrfMatches, SessionStore, SignInThrottle, type ConsoleSession } from './sessions.js';
import { pageHtml, securityHeaders } from './page.js';

const COOKIE = 'cia_console';
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Response headers of the API passed on to the page. */
const PASSED = ['content-type', 'content-disposition', 'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'retry-after'];

function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

function cookieOf(req: FastifyRequest): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return v.join('=');
  }
  return undefined;
}

/**
 * A request another site made the browser send is refused: browsers mark it with
 * `Sec-Fetch-Site`, and with an `Origin` that is not this host. (SameSite=Strict already keeps
 * the cookie off it; this also covers the sign-in form, which has no cookie yet.)
 */
function checkSameSite(req: FastifyRequest): void {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') throw new ForbiddenError('Cross-site request refused.');
  const origin = req.headers.origin;
  if (origin && origin !== 'null') {
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      throw new ForbiddenError('Cross-site request refused.');
    }
    if (host !== req.headers.host) throw new ForbiddenError('Cross-site request refused.');
  } else if (origin === 'null') throw new ForbiddenError('Cross-site request refused.');
}

/** Registers the console. */
export async function consoleRoutes(app: FastifyInstance, opts: { container: DependencyContainer }): Promise<void> {
  const c = opts.container;
  const settings = c.resolve(TOKENS.Settings);
  const keys = c.resolve(TOKENS.Keys);
  const sessions = new SessionStore(settings.consoleSessionIdleMs);
  const throttle = new SignInThrottle();
  app.addHook('onClose', async () => sessions.close());

  const secure = (req: FastifyRequest) => req.protocol === 'https' || (settings.publicBaseUrl?.startsWith('https://') ?? false);
  const setCookie = (req: FastifyRequest, reply: FastifyReply, value: string, maxAgeSeconds?: number) => {
    const parts = [`${COOKIE}=${value}`, 'Path=/console', 'HttpOnly', 'SameSite=Strict'];
    if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
    if (secure(req)) parts.push('Secure');
    reply.header('Set-Cookie', parts.join('; '));
  };
  const session = (req: FastifyRequest): ConsoleSession => {
    const s = sessions.touch(cookieOf(req));
    if (!s) throw new AuthError('Not signed in, or the session has expired.');
    return s;
  };
  const checkCsrf = (req: FastifyRequest, s: ConsoleSession) => {
    checkSameSite(req);
    if (!csrfMatches(s, req.headers['x-csrf-token'])) throw new ForbiddenError('Missing or wrong CSRF token.');
  };

  app.addHook('onSend', async (_req, reply, payload) => {
    securityHeaders(reply);
    reply.header('Cache-Control', 'no-store');
    return payload;
  });
  app.setErrorHandler(async (raw, _req, reply) => {
    const err = normaliseError(raw);
    if (err.code === 'RATE_LIMITED') reply.header('Retry-After', String((err.details as { retryAfter?: number } | undefined)?.retryAfter ?? 60));
    reply.code(err.status).send({ error: err.message, code: err.code });
  });

  const page = async (_req: FastifyRequest, reply: FastifyReply) => reply.type('text/html; charset=utf-8').send(pageHtml(Boolean(settings.adminToken)));
  app.get('/console', page);
  app.get('/console/', page);
  app.get('/console/app/*', page);

  app.get<{ Params: { name: string } }>('/console/assets/:name', async (req, reply) => {
    const a = (await consoleAssets()).get(req.params.name);
    if (!a) throw new NotFoundError('Not found.');
    reply.header('ETag', a.etag).header('Vary', 'Accept-Encoding').type(a.type);
    if (req.headers['if-none-match'] === a.etag) return reply.code(304).send();
    if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('Content-Encoding', 'gzip').send(a.gzip);
    return reply.send(a.body);
  });

  // Not signed in is an answer here, not an error: the page asks before it shows the sign-in form.
  app.get('/console/session', async (req) => {
    const s = sessions.touch(cookieOf(req));
    if (!s) return { role: null };
    return { role: s.role, csrf: s.csrf, keyId: s.keyId ?? null, name: s.name ?? null, idleSeconds: Math.round(settings.consoleSessionIdleMs / 1000) };
  });

  app.post('/console/session', async (req, reply) => {
    checkSameSite(req);
    const address = req.ip;
    const wait = throttle.retryAfter(address);
    if (wait > 0) throw new RateLimitedError(wait);
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (typeof b !== 'object' || Array.isArray(b)) throw new InputError('Body must be a JSON object.');
    const role = b.role;
    const secret = typeof b.secret === 'string' ? b.secret.trim() : '';
    if (role !== 'admin' && role !== 'key') throw new InputError("'role' must be admin or key.");
    if (!secret || secret.length > 500) throw new InputError("'secret' is required.");
    let created: ReturnType<SessionStore['create']> | undefined;
    if (role === 'admin') {
      if (settings.adminToken && sameSecret(secret, settings.adminToken)) created = sessions.create({ role, secret });
    } else {
      const key = await keys.findByToken(secret);
      if (key?.active) created = sessions.create({ role, secret, keyId: key.id, name: key.name });
    }
    if (!created) {
      throttle.fail(address);
      throw new AuthError(role === 'admin' ? 'Invalid admin token.' : 'API key is invalid or missing.');
    }
    setCookie(req, reply, created.id);
    const s = created.session;
    return { role: s.role, csrf: s.csrf, keyId: s.keyId ?? null, name: s.name ?? null, idleSeconds: Math.round(settings.consoleSessionIdleMs / 1000) };
  });

  app.delete('/console/session', async (req, reply) => {
    const s = sessions.touch(cookieOf(req));
    if (s) checkCsrf(req, s);
    sessions.end(cookieOf(req));
    setCookie(req, reply, '', 0);
    return { signedOut: true };
  });

  // Bodies of any size the API itself accepts: the API's own route limits apply when forwarded.
  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/console/api/*',
    bodyLimit: settings.fileBodyLimitBytes,
    handler: async (req, reply) => {
      if (UNSAFE.has(req.method)) checkSameSite(req);
      const s = session(req);
      if (UNSAFE.has(req.method)) checkCsrf(req, s);
      const rest = req.url.slice('/console/api'.length);
      const allowed = s.role === 'admin' ? /^\/admin\//.test(rest) : /^\/api\/v[12]\//.test(rest);
      if (!allowed) throw new NotFoundError(`Route ${req.method} ${rest.split('?')[0]} not found.`);
      const headers: Record<string, string> = { authorization: `Bearer ${s.secret}`, 'request-source': 'console' };
      if (req.headers['content-type']) headers['content-type'] = req.headers['content-type'];
      const res = await app.inject({
        method: req.method as 'GET',
        url: rest,
        headers,
        payload: req.body === undefined ? undefined : typeof req.body === 'string' || Buffer.isBuffer(req.body) ? req.body : JSON.stringify(req.body),
      });
      reply.code(res.statusCode);
      for (const h of PASSED) if (res.headers[h] !== undefined) reply.header(h, res.headers[h] as string);
      return reply.send(res.rawPayload);
    },
  });
}
