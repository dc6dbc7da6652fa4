/**
 * `npm run admin -- <command>`: the admin operations on the configured store (DATABASE_URL, or
 * the embedded database under DATA_DIR — stop the server first, PGlite belongs to one process).
 *
 *   keys create --name NAME [--credits N] [--rate N] [--budget N] [--policy JSON]
 *   keys list [--page N] [--limit N]
 *   keys get ID
 *   keys update ID [--name S] [--active true|false] [--rate N] [--budget N|null] [--policy JSON]
 *   credits add ID AMOUNT --reason TEXT        (a negative AMOUNT deducts)
 *   usage ID [--limit N] [--status success|error|CODE]
 *   transactions ID [--limit N]
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadSettings } from '../../core/config.js';
import { openPglite } from '../../core/storage/pglite.js';
import { openPostgres } from '../../core/storage/postgres.js';
import { migrate } from '../../core/storage/migrations.js';
import { KeyStore } from '../../core/keys/key-store.js';
import { MemoryLedger } from '../../core/credits/memory-ledger.js';
import { SqlLedger } from '../../core/credits/sql-ledger.js';
import { UsageLog } from '../../core/usage/usage-log.js';
import { ServiceError } from '../../core/errors.js';
import { AdminService } from './service.js';
import { usageQuery } from '../v2/account.js';

const USAGE = `usage: npm run admin -- <command>
  keys create --name NAME [--credits N] [--rate N] [--budget N] [--policy JSON]
  keys list [--page N] [--limit N]
  keys get ID
  keys update ID [--name S] [--active true|false] [--rate N] [--budget N|null] [--policy JSON]
  credits add ID AMOUNT --reason TEXT      (deduct: credits add ID --reason TEXT -- -AMOUNT)
  usage ID [--limit N] [--status success|error|CODE]
  transactions ID [--limit N]`;

function num(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`not a number: ${v}`);
  return n;
}

async function main(argv: string[]): Promise<unknown> {
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
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, action, ...rest] = positionals;
  if (values.help || !group) return USAGE;

  const settings = loadSettings(process.env);
  const db = settings.databaseUrl ? await openPostgres(settings.databaseUrl, { max: 2 }) : await openPglite(join(settings.dataDir, 'db'));
  await migrate(db);
  const ledger = db.kind === 'embedded' ? new MemoryLedger(db) : new SqlLedger(db);
  const usage = new UsageLog(db);
  const svc = new AdminService(new KeyStore(db, 0), ledger, usage, settings.defaultRateLimit);
  try {
    const page = { page: num(values.page) ?? 1, limit: num(values.limit) ?? 50 };
    if (group === 'keys' && action === 'create') {
      return await svc.createKey({
        name: values.name,
        credits: num(values.credits),
        rateLimitPerMinute: num(values.rate),
        budget: values.budget === undefined ? undefined : values.budget === 'null' ? null : num(values.budget),
        policy: values.policy ? JSON.parse(values.policy) : undefined,
      });
    }
    if (group === 'keys' && action === 'list') return await svc.listKeys(page.page, page.limit);
    if (group === 'keys' && action === 'get' && rest[0]) return await svc.getKey(rest[0]);
    if (group === 'keys' && action === 'update' && rest[0]) {
      const patch: Record<string, unknown> = {};
      if (values.name !== undefined) patch.name = values.name;
      if (values.active !== undefined) patch.active = values.active === 'true';
      if (values.rate !== undefined) patch.rateLimitPerMinute = num(values.rate);
      if (values.budget !== undefined) patch.budget = values.budget === 'null' ? null : num(values.budget);
      if (values.policy !== undefined) patch.policy = JSON.parse(values.policy);
      return await svc.updateKey(rest[0], patch);
    }
    if (group === 'credits' && action === 'add' && rest[0] && rest[1]) return await svc.adjustCredits(rest[0], { amount: num(rest[1]), reason: values.reason });
    if (group === 'usage' && action) return await svc.usageOf(action, usageQuery({ limit: values.limit, page: values.page, status: values.status }));
    if (group === 'transactions' && action) return await svc.transactionsOf(action, page.page, page.limit);
    return USAGE;
  } finally {
    await usage.close();
    await ledger.close();
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (out) => {
    process.stdout.write((typeof out === 'string' ? out : JSON.stringify(out, null, 2)) + '\n');
  },
  (err) => {
    process.stderr.write(`error: ${err instanceof ServiceError || err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
