/**
 * Service settings from the environment (README "Configuration"). Read once at boot from an
 * explicit env object, so several servers with different settings can run in one test process.
 */
import { resolve } from 'node:path';

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
  /** Largest accepted request body. */
  bodyLimitBytes: number;
  /** How long shutdown waits for requests in flight. */
  shutdownGraceMs: number;
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
  BODY_LIMIT_BYTES: { description: 'Largest request body accepted.', default: '104857600' },
  SHUTDOWN_GRACE_MS: { description: 'How long shutdown waits for requests in flight.', default: '15000' },
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
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 100 * 1024 * 1024),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 15000),
  };
}
