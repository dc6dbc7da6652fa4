/**
 * Black-box test harness: starts the real server (Fastify listening on 127.0.0.1, port 0) with a
 * fresh DATA_DIR, or in a child process (`processMode`), and talks to it over HTTP only.
 */
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { Agent, fetch } from 'undici';
import { startService, type RunningServer } from '../../server/start.js';
import type { ServiceConfig } from '../../core/registry/types.js';
import { openPglite } from '../../core/storage/pglite.js';
import { migrate } from '../../core/storage/migrations.js';
import { JOB_SCHEMA } from '../../core/jobs/boss.js';

/** A parsed HTTP response. */
export interface TestResponse {
  status: number;
  headers: Record<string, string>;
  json: any;
  text: string;
}

/** Options of a test server. */
export interface StartOptions {
  env?: Record<string, string | undefined>;
  /** Reuse a data directory (restart tests); a fresh temporary one otherwise. */
  dataDir?: string;
  /** Replace plugins.config.ts (test plugins). */
  serviceConfig?: ServiceConfig;
  /**
   * Run the service in a child process with exactly `env` (plus PATH/HOME): `server/main.ts`, or
   * with `serviceConfig` set to the test plugins, `test/fixtures/echo-server.ts` (echoOnlyConfig).
   */
  processMode?: boolean;
  /**
   * With `processMode`: the child in a session of its own, as a deployed service is (systemd,
   * a container's init). Where the kernel schedules by session (autogroup), a child left in this
   * process's session shares one CPU share with everything this process does.
   */
  ownSession?: boolean;
}

/** A server under test. */
export interface TestServer {
  url: string;
  /** Routes the app registered (in-process servers only). */
  routes: { method: string; url: string }[];
  adminToken: string;
  dataDir: string;
  /** The server's process id (a child process in `processMode`, else this process). */
  pid: number;
  call(method: string, path: string, opts?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<TestResponse>;
  admin(method: string, path: string, body?: unknown): Promise<TestResponse>;
  createKey(opts?: { credits?: number; name?: string; rateLimitPerMinute?: number; budget?: number | null; policy?: unknown }): Promise<{ id: string; key: string }>;
  /** Stops the server; the data directory is removed unless it was passed in or `keepData` is set. */
  close(opts?: { keepData?: boolean }): Promise<void>;
}

const ADMIN_TOKEN = 'test-admin-token';

const ROOT = join(import.meta.dirname, '..', '..');
/** The version of an installed package, from its package.json. */
const installedVersion = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const PGLITE_VERSION = installedVersion('@electric-sql/pglite');
/** A fresh cluster per PGlite version (initdb, about 5 s of CPU), made once by the service itself. */
const FRESH_CLUSTER = join(tmpdir(), `cia-test-pglite-${PGLITE_VERSION}`);
/** pg-boss's release: its schema (tables, functions, version row) is that release's. */
const PGBOSS_VERSION = installedVersion('pg-boss');
/** The migrations' source: a template made before they changed is not used after. */
const SCHEMA = createHash('sha256').update(readFileSync(join(ROOT, 'core', 'storage', 'migrations.ts'))).digest('hex').slice(0, 12);
/**
 * One embedded database per PGlite version and schema, copied by every test server's new DATA_DIR
 * instead of each running initdb: a fresh cluster with the migrations already applied, so the
 * server's own `migrate` finds nothing to do (about 0.25 s of CPU less per server start; most of
 * what migrating cost is PGlite compiling its WebAssembly lazily, paid by the next queries
 * instead). pg-boss's schema is installed too, so each server's `boss.start()` finds it at its
 * version and installs nothing (40-90 ms of the database thread less per start); that schema
 * depends only on the pg-boss release and the schema name, both in the template's name. Still an
 * empty store: neither inserts anything a test could see; the job queue is left to each server,
 * whose settings shape it (its expiry is the lease).
 */
export const EMBEDDED_DB_TEMPLATE = join(tmpdir(), `cia-test-pglite-${PGLITE_VERSION}-schema-${SCHEMA}-${JOB_SCHEMA}-${PGBOSS_VERSION}`);

/**
 * Makes {@link EMBEDDED_DB_TEMPLATE} once per machine: migrated beside it and renamed into place,
 * so files starting together may each make one and the first rename wins (as the service makes
 * its own template). Awaited as this module loads, before anything can hand the path to a server
 * or the CLI: one that found it missing would make an unmigrated cluster there (still correct,
 * its servers would migrate, only slower).
 */
async function makeMigratedTemplate(): Promise<void> {
  if (existsSync(join(EMBEDDED_DB_TEMPLATE, 'PG_VERSION'))) return;
  const making = `${EMBEDDED_DB_TEMPLATE}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const db = await openPglite(making, { template: FRESH_CLUSTER });
  try {
    await migrate(db);
    // What pg-boss's start() runs on a database without its schema (the construction plan of this
    // release), sent as one multi-statement text as the service's embedded adapter sends it.
    const { default: PgBoss } = await import('pg-boss');
    await db.exec!(PgBoss.getConstructionPlans(JOB_SCHEMA));
  } finally {
    await db.close();
  }
  await rename(making, EMBEDDED_DB_TEMPLATE).catch(() => rm(making, { recursive: true, force: true }));
}
await makeMigratedTemplate();

/**
 * Puts a copy of the embedded database template into a fresh DATA_DIR before the service starts,
 * with `cp -a` (about 0.3 s of system time) instead of leaving the copy to the service (its
 * copy-tree.ts, or the admin CLI's, costs more CPU under the suite's load, at every start). The
 * service then finds its database in place, as on any later start of a DATA_DIR. Only on the
 * embedded store and once the template exists (it appears whole, renamed into place); otherwise
 * the service copies or makes it itself.
 */
async function seedEmbeddedDb(dataDir: string, env: Record<string, string | undefined>): Promise<void> {
  const template = env.EMBEDDED_DB_TEMPLATE;
  if (!template || env.DATABASE_URL || env.DATA_DIR !== dataDir || !existsSync(join(template, 'PG_VERSION'))) return;
  await promisify(execFile)('cp', ['-a', template, join(dataDir, 'db')]);
}

/**
 * A new temporary DATA_DIR already holding the migrated embedded database, for tests whose first
 * command on it is the admin CLI rather than a test server; the caller removes it.
 */
export async function seededDataDir(prefix: string): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  await seedEmbeddedDb(dataDir, { EMBEDDED_DB_TEMPLATE, DATA_DIR: dataDir });
  return dataDir;
}

/**
 * How long after connecting a connection of {@link request}'s may carry another request: far less
 * than the service's keep-alive (Fastify's 72 s; Node closes an idle connection at 73 s). Left to
 * itself the client closes an idle connection at 70 s (the server's advertised 72 less undici's
 * 2 s margin), by a timer; but a test's synchronous work, or a loaded machine not scheduling the
 * process, holds every timer of this process alike, the client's and an in-process server's. A
 * call sent after such a pause across the 70-73 s mark (openapi's schema compiling, run stopped
 * for seconds at a time) went out on a connection whose server-side timer was due, and that timer,
 * run before the server read the request, reset the connection under it: `fetch failed`
 * (ECONNRESET). This age is checked against the clock as each request is sent (undici's
 * clientTtl), not by a timer, so no pause makes a stale connection look fresh.
 */
const CONNECTION_TTL_MS = 10_000;
const dispatcher = new Agent({ clientTtl: CONNECTION_TTL_MS });

/** Sends one request and parses the answer. */
export async function request(url: string, method: string, opts: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  } else if (opts.rawBody !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(url, { method, headers, body, dispatcher });
  const text = await res.text();
  let json: any = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: Object.fromEntries(res.headers), json, text };
}

/**
 * The test command's V8 flags (scripts/test.sh: why) that a server in a process of its own gets
 * too: it opens the same embedded database, whose WebAssembly would otherwise tier up there.
 */
const CHILD_V8_FLAGS = process.execArgv.filter((a) => a === '--liftoff-only');

async function spawnServer(entry: string, env: Record<string, string | undefined>, ownSession = false): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--no-node-snapshot', ...CHILD_V8_FLAGS, '--import', 'tsx', entry], {
    cwd: join(import.meta.dirname, '..', '..'),
    detached: ownSession,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (b: Buffer) => {
      out += b.toString();
      const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve({ url: m[1]!, child });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (b) => (out += b.toString()));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out.slice(-2000)}`)));
  });
}

/** Starts a server for a test. */
export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'cia-test-')));
  const env: Record<string, string | undefined> = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN, LOG_LEVEL: 'error', DOCUMENTS_PREWARM: 'false', EMBEDDED_DB_TEMPLATE, ...opts.env };
  if (!opts.dataDir) await seedEmbeddedDb(dataDir, env);
  let running: RunningServer | undefined;
  let child: ChildProcess | undefined;
  let url: string;
  try {
    if (opts.processMode) {
      // The child is known to be up from its `listening on` log line, an info-level line.
      if (opts.env?.LOG_LEVEL === undefined) env.LOG_LEVEL = 'info';
      const entry = opts.serviceConfig ? 'test/fixtures/echo-server.ts' : 'server/main.ts';
      const s = await spawnServer(entry, Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<string, string>, opts.ownSession === true);
      url = s.url;
      child = s.child;
    } else {
      running = await startService(env, opts.serviceConfig ? { serviceConfig: opts.serviceConfig } : {});
      url = running.url;
    }
  } catch (err) {
    // A start refused on purpose (boot validation tests) leaves no data directory behind.
    if (!opts.dataDir) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const server: TestServer = {
    url,
    routes: running?.app.registeredRoutes ?? [],
    adminToken: ADMIN_TOKEN,
    dataDir,
    pid: child?.pid ?? process.pid,
    call: (method, path, o = {}) => request(url + path, method, { token: o.key, body: o.body, rawBody: o.rawBody, headers: o.headers }),
    admin: (method, path, body) => request(url + '/admin' + path, method, { token: ADMIN_TOKEN, body }),
    async createKey(o = {}) {
      const res = await server.admin('POST', '/keys', { name: o.name ?? 'test', credits: o.credits ?? 1000, ...o });
      if (res.status !== 201) throw new Error(`createKey failed: ${res.status} ${res.text}`);
      return { id: res.json.id, key: res.json.key };
    },
    async close(c = {}) {
      if (running) await running.stop();
      if (child && child.exitCode === null) {
        const exited = new Promise((r) => child!.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      if (!opts.dataDir && !c.keepData) await rm(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/**
 * Starts several servers at once (instances of one deployment starting together). If any fails to
 * start, the others are stopped before the error is thrown: a child process left running would
 * keep the test file from ever ending.
 */
export async function startServers(all: StartOptions[]): Promise<TestServer[]> {
  const settled = await Promise.allSettled(all.map((o) => startServer(o)));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (!failed) return settled.map((r) => (r as PromiseFulfilledResult<TestServer>).value);
  for (const r of settled) if (r.status === 'fulfilled') await r.value.close().catch(() => {});
  throw failed.reason;
}
