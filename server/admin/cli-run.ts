/**
 * The admin CLI's commands (usage in cli.ts) as a function of its arguments, environment and
 * output streams, so the test suite can run most of them in its own process (booting tsx and the
 * store per command costs seconds of CPU each); cli.ts only hands it the process's own.
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadSettings } from '../../core/config.js';
import { openPglite } from '../../core/storage/pglite.js';
import { EmbeddedInUseError } from '../../core/storage/embedded-lock.js';
import type { Db } from '../../core/storage/db.js';
import { openPostgres } from '../../core/storage/postgres.js';
import { migrate } from '../../core/storage/migrations.js';
import { KeyStore } from '../../core/keys/key-store.js';
import { MemoryLedger } from '../../core/credits/memory-ledger.js';
import { SqlLedger } from '../../core/credits/sql-ledger.js';
import { UsageLog } from '../../core/usage/usage-log.js';
import { NotFoundError, ServiceError } from '../../core/errors.js';
import { createFileStore } from '../../core/engines/files/index.js';
import type { FileStore } from '../../core/engines/files/types.js';
import { AdminService } from './service.js';
import { usageQuery } from '../usage-query.js';
import { usageStats } from '../../core/usage/usage-stats.js';
import { statsQuery } from './stats.js';
import { JobStore } from '../../core/jobs/store.js';
import { cancelOnStore } from '../../core/jobs/cancel-on-store.js';
import { jobView } from '../../core/jobs/view.js';
import { statusFilter } from '../jobs-query.js';
import { watchJob } from './job-watch.js';

/** Where a command reads its settings and writes its answer: the process's own, or a test's. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: { write(chunk: string): unknown };
  /** `isTTY` makes `jobs watch` redraw one bar in place instead of printing a line per step. */
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
}

const USAGE = `usage: npm run admin -- <command>
  keys create --name NAME [--credits N] [--rate N] [--budget N] [--policy JSON]
  keys list [--page N] [--limit N] [--search S]
  keys get ID
  keys rotate ID
  stats [--from ISO] [--to ISO] [--bucket hour|day] [--group-by lane|capability|provider|status|key]
  keys update ID [--name S] [--active true|false] [--rate N] [--budget N|null] [--policy JSON]
  credits add ID AMOUNT --reason TEXT
  credits deduct ID AMOUNT --reason TEXT
  usage ID [--page N] [--limit N] [--status success|error|HTTP] [--object-type T] [--object-id ID] [--provider P]
  transactions ID [--page N] [--limit N]
  files delete ID
  jobs list [--status queued|running|completed|failed|cancelled] [--key ID] [--page N] [--limit N]
  jobs watch ID
  jobs cancel ID`;

function num(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`not a number: ${v}`);
  return n;
}

/** One admin operation: run on the store directly, or sent to a running server's admin API. */
interface Operation {
  /** `files` opens DATA_DIR's file store on first use: only `files` commands need it. */
  direct(svc: AdminService, files: () => FileStore, db: Db): Promise<unknown>;
  http: { method: string; path: string; body?: unknown; query?: Record<string, string | undefined> };
  /** Paged HTTP answers carry `{ items }`; the CLI prints the items either way. */
  paged?: boolean;
  /** Run again until the job it reads ends, showing progress (`jobs watch`). */
  watch?: boolean;
}

/** A job by id on the store directly, as the admin API shows it. */
async function jobOf(db: Db, id: string): Promise<Record<string, unknown>> {
  const job = await new JobStore(db).get(id);
  if (!job) throw new NotFoundError(`Job not found: ${id}`);
  return { ...jobView(job), keyId: job.keyId };
}

function operation(values: Record<string, string | boolean | undefined>, positionals: string[], io: CliIo): Operation | undefined {
  const v = values as Record<string, string | undefined>;
  const [group, action, ...rest] = positionals;
  const page = { page: num(v.page) ?? 1, limit: num(v.limit) ?? 50 };
  const pageQuery = { page: v.page, limit: v.limit };
  const id = encodeURIComponent(rest[0] ?? '');
  if (group === 'keys' && action === 'create') {
    const body = {
      name: v.name,
      credits: num(v.credits),
      rateLimitPerMinute: num(v.rate),
      budget: v.budget === undefined ? undefined : v.budget === 'null' ? null : num(v.budget),
      policy: v.policy ? JSON.parse(v.policy) : undefined,
    };
    return { direct: (svc) => svc.createKey(body), http: { method: 'POST', path: '/keys', body } };
  }
  if (group === 'keys' && action === 'list') {
    return { direct: (svc) => svc.listKeys(page.page, page.limit, v.search), http: { method: 'GET', path: '/keys', query: { ...pageQuery, search: v.search } }, paged: true };
  }
  if (group === 'keys' && action === 'rotate' && rest[0]) return { direct: (svc) => svc.rotateKey(rest[0]!), http: { method: 'POST', path: `/keys/${id}/rotate` } };
  if (group === 'stats') {
    const q = { from: v.from, to: v.to, bucket: v.bucket, groupBy: v['group-by'] };
    return { direct: async (_svc, _files, db) => ({ buckets: await usageStats(db, statsQuery(q)) }), http: { method: 'GET', path: '/stats', query: q } };
  }
  if (group === 'keys' && action === 'get' && rest[0]) return { direct: (svc) => svc.getKey(rest[0]!), http: { method: 'GET', path: `/keys/${id}` } };
  if (group === 'keys' && action === 'update' && rest[0]) {
    const patch: Record<string, unknown> = {};
    if (v.name !== undefined) patch.name = v.name;
    if (v.active !== undefined) patch.active = v.active === 'true';
    if (v.rate !== undefined) patch.rateLimitPerMinute = num(v.rate);
    if (v.budget !== undefined) patch.budget = v.budget === 'null' ? null : num(v.budget);
    if (v.policy !== undefined) patch.policy = JSON.parse(v.policy);
    return { direct: (svc) => svc.updateKey(rest[0]!, patch), http: { method: 'PATCH', path: `/keys/${id}`, body: patch } };
  }
  if (group === 'credits' && (action === 'add' || action === 'deduct') && rest[0] && rest[1]) {
    const amount = num(rest[1]);
    const body = { amount: action === 'deduct' && amount !== undefined ? -amount : amount, reason: v.reason };
    return { direct: (svc) => svc.adjustCredits(rest[0]!, body), http: { method: 'POST', path: `/keys/${id}/credits`, body } };
  }
  if (group === 'usage' && action) {
    const q = { limit: v.limit, page: v.page, status: v.status, objectType: v['object-type'], objectId: v['object-id'], provider: v.provider };
    return { direct: (svc) => svc.usageOf(action, usageQuery(q)), http: { method: 'GET', path: `/keys/${encodeURIComponent(action)}/usage`, query: q }, paged: true };
  }
  if (group === 'transactions' && action) {
    return { direct: (svc) => svc.transactionsOf(action, page.page, page.limit), http: { method: 'GET', path: `/keys/${encodeURIComponent(action)}/transactions`, query: pageQuery }, paged: true };
  }
  if (group === 'files' && action === 'delete' && rest[0]) {
    const fileId = rest[0];
    // The same answers as DELETE /admin/files/:id, so both paths print alike.
    const direct = async (_svc: AdminService, files: () => FileStore) => {
      if (!(await files().delete(fileId))) throw new NotFoundError(`File not found: ${fileId}`);
      return { id: fileId, deleted: true };
    };
    return { direct, http: { method: 'DELETE', path: `/files/${id}` } };
  }
  if (group === 'jobs' && action === 'list') {
    const q = { status: v.status, keyId: v.key, page: v.page, limit: v.limit };
    const list = async (_svc: AdminService, _files: () => FileStore, db: Db) =>
      (await new JobStore(db).list({ keyId: v.key, status: statusFilter(v.status), page: page.page, limit: num(v.limit) ?? 20 })).map((j) => ({ ...jobView(j), keyId: j.keyId }));
    return { direct: list, http: { method: 'GET', path: '/jobs', query: q }, paged: true };
  }
  if (group === 'jobs' && action === 'watch' && rest[0]) {
    return { direct: (_svc, _files, db) => jobOf(db, rest[0]!), http: { method: 'GET', path: `/jobs/${id}`, query: { skipData: 'true' } }, watch: true };
  }
  if (group === 'jobs' && action === 'cancel' && rest[0]) {
    // Directly on the store: the instance running it sees the cancel at its next heartbeat; its
    // webhook event is queued for the next server to deliver.
    const cancel = async (_svc: AdminService, _files: () => FileStore, db: Db) => {
      await jobOf(db, rest[0]!);
      await cancelOnStore(db, loadSettings(io.env).databaseUrl, io.env, rest[0]!, pino({ level: 'warn' }, io.stderr));
      return jobOf(db, rest[0]!);
    };
    return { direct: cancel, http: { method: 'POST', path: `/jobs/${id}/cancel` } };
  }
  return undefined;
}

/** Sends the operation to the running server that holds the embedded database. */
async function viaServer(op: Operation, url: string, token: string): Promise<unknown> {
  const target = new URL(`/admin${op.http.path}`, url);
  for (const [k, val] of Object.entries(op.http.query ?? {})) if (val !== undefined) target.searchParams.set(k, val);
  const res = await fetch(target, {
    method: op.http.method,
    headers: { authorization: `Bearer ${token}`, ...(op.http.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: op.http.body === undefined ? undefined : JSON.stringify(op.http.body),
  });
  const text = await res.text();
  let json: { error?: string; items?: unknown } | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!res.ok) throw new Error(json?.error ?? `the server answered ${res.status}`);
  return op.paged ? json?.items : json;
}

async function main(argv: string[], io: CliIo): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      credits: { type: 'string' },
      rate: { type: 'string' },
      budget: { type: 'string' },
      policy: { type: 'string' },
      active: { type: 'string' },
      reason: { type: 'string' },
      page: { type: 'string' },
      limit: { type: 'string' },
      status: { type: 'string' },
      'object-type': { type: 'string' },
      'object-id': { type: 'string' },
      provider: { type: 'string' },
      search: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      bucket: { type: 'string' },
      'group-by': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || !positionals[0]) return USAGE;
  const op = operation(values, positionals, io);
  if (!op) return USAGE;

  const settings = loadSettings(io.env);
  let db: Db;
  if (settings.databaseUrl) db = await openPostgres(settings.databaseUrl, { max: 2 });
  else {
    const dir = join(settings.dataDir, 'db');
    try {
      db = await openPglite(dir, { template: settings.embeddedDbTemplate });
    } catch (err) {
      if (!(err instanceof EmbeddedInUseError)) throw err;
      // A running server owns the embedded store (and its balances): go through its admin API.
      const token = io.env.ADMIN_TOKEN?.trim();
      if (err.holder.url && token) {
        const url = err.holder.url;
        if (op.watch) return watchJob(() => viaServer(op, url, token) as never, io.stderr);
        return viaServer(op, url, token);
      }
      throw new Error(`${err.message} Stop that server first, or set ADMIN_TOKEN to its admin token so this command goes through its admin API${err.holder.url ? ` at ${err.holder.url}` : ''}.`);
    }
  }
  await migrate(db);
  const ledger = db.kind === 'embedded' ? new MemoryLedger(db) : new SqlLedger(db);
  const usage = new UsageLog(db);
  const svc = new AdminService(new KeyStore(db, 0), ledger, usage, settings.defaultRateLimit);
  // Produced files live in this instance's DATA_DIR (or the FILES_S3_BUCKET), not the database (see DELETE /admin/files/:id).
  let files: (FileStore & { close(): Promise<void> }) | undefined;
  const warn = (_o: unknown, msg?: string) => void io.stderr.write(`warning: ${msg ?? ''}\n`);
  const log = { debug() {}, info() {}, warn, error: warn };
  const openFiles = () => (files ??= createFileStore({ dataDir: settings.dataDir, publicBaseUrl: () => '', env: io.env, log }));
  try {
    if (op.watch) return await watchJob(() => op.direct(svc, openFiles, db) as never, io.stderr);
    return await op.direct(svc, openFiles, db);
  } finally {
    await files?.close();
    await usage.close();
    await ledger.close();
    await db.close();
  }
}

/**
 * Runs one command: prints its answer (JSON, or the usage text) on `stdout`, or `error: …` on
 * `stderr`; answers the exit code (0 or 1).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    const out = await main(argv, io);
    io.stdout.write((typeof out === 'string' ? out : JSON.stringify(out, null, 2)) + '\n');
    return 0;
  } catch (err) {
    io.stderr.write(`error: ${err instanceof ServiceError || err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
