/**
 * Service settings from the environment (README "Configuration"). Read once at boot from an
 * explicit env object, so several servers with different settings can run in one test process.
 */
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { JOB_SETTINGS_DOC } from './jobs/settings.js';

/** The service's own settings; provider settings are declared by each plugin. */
export interface ServiceSettings {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  /** Base of absolute URLs we hand out; defaults to the address we listen on. */
  publicBaseUrl: string | undefined;
  logLevel: string;
  /** Rate limit of keys created without one (requests per minute). */
  defaultRateLimit: number;
  /** How long another instance may keep serving a changed key from its cache. */
  keyCacheTtlMs: number;
  /** Largest accepted request body on routes that carry no files (issue 18 finding 3). */
  bodyLimitBytes: number;
  /** Largest body on routes where files travel (conversion, merging, extraction, v2 run, MCP). */
  fileBodyLimitBytes: number;
  /** Largest body of the code-execution routes (source plus commands). */
  codeBodyLimitBytes: number;
  /** Bytes of request bodies and URL downloads that may be arriving at once, across all requests. */
  bodyBytesInFlightMax: number;
  /** Bytes of request bodies one key may have arriving at once (its share of the instance's budget). */
  bodyBytesPerKeyMax: number;
  /** JSON bodies at least this large are parsed (and their base64 files decoded) in a worker thread (issue 24). */
  jsonOffThreadBytes: number;
  /** Requests one key may have in progress at once on this instance, decided before the body is read. */
  keyRequestsInFlightMax: number;
  /** How long a request refused for its input (400, 413) keeps its place in that count after its answer (ms). */
  keyRefusalHoldMs: number;
  /** A key's refused lookups (404, 429 RATE_LIMITED) answered at once and then per second; past it they wait their turn (0: no pace). */
  keyRefusalsPerSecond: number;
  /** Port of a separate metrics listener; `undefined`: `/metrics` on the main port behind ADMIN_TOKEN. */
  metricsPort: number | undefined;
  /** The console's session ends after this long without a request (ms). */
  consoleSessionIdleMs: number;
  /** A fresh embedded database that new data directories copy instead of running initdb. */
  embeddedDbTemplate: string | undefined;
  /** Shortest interval a change monitor may have (ms; issue 27: 5 minutes). */
  monitorMinIntervalMs: number;
  /** Most monitors one key may have. */
  monitorMaxPerKey: number;
  /** How often each instance looks for due monitors (ms). */
  monitorPollMs: number;
  /** How long a stopping instance keeps answering 503 before it stops listening (load balancers see it drain). */
  shutdownDelayMs: number;
  /** How long shutdown waits for requests in flight. */
  shutdownGraceMs: number;
  /** JSON file of operator route aliases for the v1 lane (`server/v1/route-aliases.ts`). */
  v1RouteAliases: string | undefined;
}

/** Documented service variables: name → description and default, used by the README test. */
export const SETTINGS_DOC: Record<string, { description: string; default: string }> = {
  PORT: { description: 'Port to listen on (0 picks a free one).', default: '3000' },
  HOST: { description: 'Address to listen on.', default: '127.0.0.1' },
  DATA_DIR: { description: 'Where the embedded database and produced files live.', default: './data' },
  DATABASE_URL: { description: 'PostgreSQL connection string; when set, keys, credits and usage live there (shared by instances).', default: '(embedded PGlite)' },
  REDIS_URL: { description: 'Redis connection string; when set, rate limits are counted there (shared by instances).', default: '(in memory)' },
  ADMIN_TOKEN: { description: 'Bearer token of the /admin API; without it the admin HTTP API is off.', default: '(admin API off)' },
  PUBLIC_BASE_URL: { description: 'Base of the download URLs handed to clients.', default: 'http://HOST:PORT' },
  LOG_LEVEL: { description: 'pino log level.', default: 'info' },
  DEFAULT_RATE_LIMIT: { description: 'Requests per minute for keys created without rateLimitPerMinute.', default: '600' },
  KEY_CACHE_TTL_MS: { description: 'How long a key lookup is cached (with PostgreSQL, how long other instances may take to see a key change).', default: '5000' },
  BODY_LIMIT_BYTES: { description: 'Largest request body accepted on routes that carry no files (413 past it).', default: '1048576' },
  FILE_BODY_LIMIT_BYTES: { description: 'Largest request body on routes where files travel: convert-to-pdf, merge-pdfs, extract-*, doc-to-text, /api/v2/run, /mcp.', default: '104857600' },
  CODE_BODY_LIMIT_BYTES: { description: 'Largest request body of run-js-code and run-python-code.', default: '5242880' },
  BODY_BYTES_PER_KEY_MAX: { description: 'Bytes of request bodies one key may have arriving at once (its share of BODY_BYTES_IN_FLIGHT_MAX); what does not fit is a free 429 BUSY.', default: '67108864' },
  JSON_OFF_THREAD_BYTES: { description: 'JSON request bodies at least this large are parsed, and their base64 files decoded, in a compute worker thread (queued fairly across keys) instead of the thread that answers every request.', default: '262144' },
  KEY_REQUESTS_IN_FLIGHT_MAX: { description: 'Requests one key may have in progress at once on an instance, checked right after authentication and before the body is parsed; a request past it waits up to 1 s for a place, then gets a free 429 BUSY with Retry-After. 0: no limit.', default: '16' },
  KEY_REFUSAL_HOLD_MS: { description: 'A request of a key with a body of 64 KB or more (or of unknown length) refused for its input (400 INVALID_INPUT, 413) keeps its place in KEY_REQUESTS_IN_FLIGHT_MAX for this long after its answer, so a key whose bodies keep being refused (bombs, invalid files) gets at most that many refused per this time, the rest a free 429 BUSY. 0: places are freed with the answer.', default: '5000' },
  KEY_REFUSALS_PER_SECOND: { description: 'Refused lookups one key is answered at once, and then per second: a 404 (unknown capability, endpoint, job or path) or a 429 RATE_LIMITED past them is the same answer sent when the key\'s next one is due, so a client looping on refusals is slowed to this pace (the key\'s other answers are never held; at most 64 of a key\'s answers wait, past that they go at once). 0: no pace.', default: '20' },
  BODY_BYTES_IN_FLIGHT_MAX: { description: 'Bytes the instance receives at once across all requests: request bodies and every body it fetches (a caller\'s files by URL, streamed to disk; pages; provider answers), each counted while received; what does not fit is a free 429 BUSY.', default: '268435456' },
  METRICS_PORT: { description: 'Serve Prometheus /metrics on this separate port (no token); unset: /metrics on the main port behind ADMIN_TOKEN.', default: '(on the main port)' },
  SHUTDOWN_DELAY_MS: { description: 'After SIGTERM, how long the instance keeps listening and answering 503 SHUTTING_DOWN (and /readyz 503) before it stops accepting connections, so a load balancer sees it drain.', default: '0' },
  SHUTDOWN_GRACE_MS: { description: 'How long shutdown waits for requests in flight.', default: '15000' },
  V1_ROUTE_ALIASES: { description: 'JSON file of extra /api/v1 paths, `{ "/api/v1/<alias>": "/api/v1/<route>" }`: each alias serves its route (same input, price, usage target); an alias onto a path not served, or one that shadows a route, stops boot.', default: '(none)' },
  CONSOLE_SESSION_IDLE_MS: { description: 'A console session (cookie) ends after this long without a request; sign-in starts a new one.', default: '1800000' },
  EMBEDDED_DB_TEMPLATE: { description: 'A directory holding a fresh embedded database (made there by the first instance that needs it) which a new DATA_DIR copies instead of creating its own: for many short-lived instances, such as a test suite.', default: '(none: each new DATA_DIR creates its database)' },
  MONITOR_MIN_INTERVAL_MS: { description: 'Shortest interval a change monitor may have.', default: '300000' },
  MONITOR_MAX_PER_KEY: { description: 'Most change monitors one key may have; creating another is a 400.', default: '100' },
  MONITOR_POLL_MS: { description: 'How often each instance looks for due monitors.', default: '10000' },
  ...JOB_SETTINGS_DOC,
};

function int(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got '${raw}'.`);
  return n;
}

/** Reads the service settings. */
export function loadSettings(env: Record<string, string | undefined>): ServiceSettings {
  // Absolute, so engines that hand paths to other processes (LibreOffice, sandboxes) see the same place.
  const dataDir = resolve(env.DATA_DIR?.trim() || 'data');
  return {
    port: int(env, 'PORT', 3000),
    host: env.HOST?.trim() || '127.0.0.1',
    dataDir,
    databaseUrl: env.DATABASE_URL?.trim() || undefined,
    redisUrl: env.REDIS_URL?.trim() || undefined,
    adminToken: env.ADMIN_TOKEN?.trim() || undefined,
    publicBaseUrl: env.PUBLIC_BASE_URL?.trim().replace(/\/+$/, '') || undefined,
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    defaultRateLimit: int(env, 'DEFAULT_RATE_LIMIT', 600),
    keyCacheTtlMs: int(env, 'KEY_CACHE_TTL_MS', 5000),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024),
    fileBodyLimitBytes: int(env, 'FILE_BODY_LIMIT_BYTES', 100 * 1024 * 1024),
    codeBodyLimitBytes: int(env, 'CODE_BODY_LIMIT_BYTES', 5 * 1024 * 1024),
    bodyBytesInFlightMax: int(env, 'BODY_BYTES_IN_FLIGHT_MAX', 256 * 1024 * 1024),
    bodyBytesPerKeyMax: int(env, 'BODY_BYTES_PER_KEY_MAX', 64 * 1024 * 1024),
    jsonOffThreadBytes: int(env, 'JSON_OFF_THREAD_BYTES', 256 * 1024),
    keyRequestsInFlightMax: int(env, 'KEY_REQUESTS_IN_FLIGHT_MAX', 16),
    keyRefusalHoldMs: int(env, 'KEY_REFUSAL_HOLD_MS', 5000),
    keyRefusalsPerSecond: int(env, 'KEY_REFUSALS_PER_SECOND', 20),
    metricsPort: env.METRICS_PORT?.trim() ? int(env, 'METRICS_PORT', 0) : undefined,
    shutdownDelayMs: int(env, 'SHUTDOWN_DELAY_MS', 0),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 15000),
    v1RouteAliases: env.V1_ROUTE_ALIASES?.trim() || undefined,
    consoleSessionIdleMs: int(env, 'CONSOLE_SESSION_IDLE_MS', 30 * 60 * 1000),
    embeddedDbTemplate: env.EMBEDDED_DB_TEMPLATE || undefined,
    monitorMinIntervalMs: int(env, 'MONITOR_MIN_INTERVAL_MS', 5 * 60 * 1000),
    monitorMaxPerKey: int(env, 'MONITOR_MAX_PER_KEY', 100),
    monitorPollMs: int(env, 'MONITOR_POLL_MS', 10_000),
  };
}

/**
 * Makes sure DATA_DIR can hold the embedded database and produced files before anything opens
 * them: a folder that does not exist yet is created (with its parents); one that cannot be
 * created, is not a folder, or is not writable stops boot with a message naming the variable
 * (issue 28: a missing folder used to end in `ENOENT … db.lock….tmp`).
 */
export function prepareDataDir(dir: string): void {
  const fix = 'Set DATA_DIR to a folder the service may write to.';
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new Error(`DATA_DIR '${dir}' is not a folder. ${fix}`);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new Error(`DATA_DIR '${dir}' cannot be created: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}. Set DATA_DIR to a folder the service may write to.`);
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    throw new Error(`DATA_DIR '${dir}' is not writable by this process. Set DATA_DIR to a folder the service may write to.`);
  }
}
