/**
 * `/mcp`: the MCP Streamable HTTP transport on the same server (issue 17 §1). Same bearer keys
 * and per-key rate limit as the API lanes (server/hooks/auth.ts), 401 without a valid key.
 * Stateless: each POST is served by a fresh MCP server (server.ts), so any instance behind a
 * load balancer can serve any request. The session id handed out at `initialize` names a
 * client's calls for cancellation only; no instance keeps anything under it.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../core/tokens.js';
import { InputError, RateLimitedError, ShuttingDownError, type ServiceError } from '../../core/errors.js';
import { authHook, setRateHeaders } from '../hooks/auth.js';
import { normaliseError } from '../hooks/body-errors.js';
import { CallRecord } from '../call-record.js';
import { abortSignalOf } from '../abort-signal.js';
import { LEGACY_ROUTES } from '../legacy-routes.js';
import { laneTables } from '../../core/policy/visibility.js';
import { LaneAdapter } from '../../core/lane/adapter.js';
import { RunningCalls } from './cancel.js';
import type { McpLane, ToolsMode } from './server.js';
import { originAllowed, originSetting } from './origin.js';
import { retriedOnce } from '../../core/util/retried-once.js';

const MODES: ToolsMode[] = ['all', 'discovery'];
/** Longest session id taken from a client; a longer one is ignored rather than stored in memory. */
const MAX_SESSION_ID = 128;

/** `MCP_TOOLS_MODE`, checked at boot: a typo must not silently change what agents see. */
export function toolsModeSetting(raw: string | undefined): ToolsMode {
  if (raw === undefined || raw === '') return 'all';
  if (!MODES.includes(raw as ToolsMode)) throw new Error(`MCP_TOOLS_MODE must be 'all' or 'discovery' (got '${raw}').`);
  return raw as ToolsMode;
}

/** A JSON-RPC error body for answers given before the MCP server is reached (401, 429, 400…). */
function rpcError(err: ServiceError) {
  // -32700 for a body that is not JSON (JSON-RPC parse error); -32000 (server error) otherwise, as the SDK's transport does.
  const code = err.message === 'Invalid JSON body.' ? -32700 : -32000;
  return { jsonrpc: '2.0', error: { code, message: err.message, data: { code: err.code } }, id: null };
}

type Message = { method?: unknown; id?: unknown; params?: { requestId?: unknown; reason?: unknown } };

function messagesOf(body: unknown): Message[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter((m): m is Message => !!m && typeof m === 'object');
}

const isRequest = (m: Message) => typeof m.method === 'string' && m.id !== undefined && m.id !== null;

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.length > 0 && s.length <= MAX_SESSION_ID ? s : undefined;
}

/** Registers the `/mcp` scope. */
export async function mcpRoutes(app: FastifyInstance, opts: { container: DependencyContainer }): Promise<void> {
  const c = opts.container;
  const registry = c.resolve(TOKENS.Registry);
  const engines = c.resolve(TOKENS.Engines);
  const env = c.resolve(TOKENS.Env);
  const defaultMode = toolsModeSetting(env.MCP_TOOLS_MODE);
  // Behind a proxy the public origin differs from the Host the proxy sends: PUBLIC_BASE_URL's is ours too.
  const origins = originSetting([env.MCP_ALLOWED_ORIGINS, c.resolve(TOKENS.Settings).publicBaseUrl].filter(Boolean).join(','));
  // v1 rows that run a provider endpoint directly are v1-only jobs too (issue 17 §2).
  const tables = laneTables(LEGACY_ROUTES);
  const running = new RunningCalls();
  // The MCP SDK (with zod, ~140 modules) and the tool catalogue (every job's compacted schemas)
  // are loaded and built by the first POST, not at boot, which most starts never serve (nearly
  // every test server). One promise, so concurrent first requests
  // share one catalogue; the registry is frozen at boot, so it is the one boot would have built.
  // A failed load is not kept: the next request tries again.
  const loadLane = retriedOnce(() =>
    Promise.all([import('./catalog.js'), import('./server.js')]).then(([{ ToolCatalog }, { createMcpServer }]) => ({
      createMcpServer,
      lane: {
        registry,
        catalog: new ToolCatalog(registry, tables),
        running,
        jobs: () => c.resolve(TOKENS.Jobs),
        deps: {
          adapter: new LaneAdapter('mcp', registry, c.resolve(TOKENS.Executor), tables),
          usage: c.resolve(TOKENS.Usage),
          // The file store starts on first use, like every engine.
          get files() {
            return engines.files;
          },
          log: app.log,
        },
      } satisfies McpLane,
    })),
  );
  const authenticate = authHook(c.resolve(TOKENS.Keys), c.resolve(TOKENS.RateLimiter));
  /** Requests the rate limit refused: their tool calls answer a tool error (issue 17 §3). */
  const limited = new WeakMap<FastifyRequest, ServiceError>();

  app.addHook('onRequest', async (req, reply) => {
    req.call = new CallRecord('/mcp');
    if (!originAllowed(origins, req.headers.origin)) {
      return reply.code(403).send({ jsonrpc: '2.0', error: { code: -32000, message: 'Origin not allowed.' }, id: null });
    }
    // GET (server-sent stream) and DELETE (end session) do not exist in stateless mode: 405 for anyone.
    if (req.method !== 'POST') return;
    if (app.isDraining()) throw new ShuttingDownError();
    try {
      await authenticate(req, reply);
    } catch (err) {
      // Counted and over the limit: the key is known; the answer depends on the message (below).
      if (err instanceof RateLimitedError && req.call.key) limited.set(req, err);
      else throw err;
    }
  });

  app.setErrorHandler(async (raw, req, reply: FastifyReply) => {
    const err = normaliseError(raw);
    if (err.code === 'INTERNAL') req.log.error({ reqId: req.id, err: raw }, 'MCP request failed');
    // RFC 6750 / MCP authorization: a 401 names the scheme the client must use.
    if (err.status === 401) reply.header('WWW-Authenticate', 'Bearer');
    if (req.call) setRateHeaders(reply, req);
    if (err.code === 'RATE_LIMITED' && typeof err.details?.retryAfter === 'number') reply.header('Retry-After', err.details.retryAfter);
    reply.code(err.status).send(rpcError(err));
  });

  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).header('Allow', 'POST').send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; send every message with POST.' }, id: null });
  app.get('/', notAllowed);
  app.delete('/', notAllowed);

  app.post('/', async (req, reply) => {
    const key = req.call.key!;
    const q = (req.query ?? {}) as Record<string, unknown>;
    const mode = q.tools === undefined ? defaultMode : (q.tools as ToolsMode);
    if (!MODES.includes(mode)) throw new InputError("Invalid input: query parameter 'tools' must be 'all' or 'discovery'.", { details: { field: 'tools' } });
    const messages = messagesOf(req.body);
    const sessionId = header(req, 'mcp-session-id');
    for (const m of messages) {
      const id = m.params?.requestId;
      if (m.method === 'notifications/cancelled' && (typeof id === 'string' || typeof id === 'number')) {
        running.cancel({ keyId: key.id, sessionId }, id, typeof m.params?.reason === 'string' ? m.params.reason : undefined);
      }
    }
    const refused = limited.get(req);
    // Over the limit, only a tool call gets an answer in MCP terms; anything else is the plain 429.
    if (refused && messages.some((m) => isRequest(m) && m.method !== 'tools/call')) throw refused;

    let calls = 0;
    const { lane, createMcpServer } = await loadLane();
    const { server, transport } = await createMcpServer(lane, {
      key,
      mode,
      sessionId,
      headerSource: header(req, 'request-source'),
      limited: refused,
      disconnect: abortSignalOf(reply.raw),
      // The first call of a request carries the request's own id (X-Request-Id); more get fresh ones.
      nextRequestId: () => (calls++ === 0 ? req.id : `req_${randomBytes(12).toString('base64url')}`),
    });
    reply.raw.once('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    if (messages.some((m) => m.method === 'initialize')) reply.raw.setHeader('Mcp-Session-Id', randomBytes(16).toString('base64url'));
    // The transport writes the response itself: carry over the headers the hooks set.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value as string | number | string[]);
    reply.hijack();
    try {
      await transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      req.log.error({ reqId: req.id, err }, 'MCP transport failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(rpcError(normaliseError(err))));
    }
  });
}
