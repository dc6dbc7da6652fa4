/**
 * The storage matrix (issue 2: credit, rate-limit and policy suites run on the embedded store
 * and on PostgreSQL + Redis). Each PostgreSQL run gets its own fresh database.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Where the real servers are on this machine and in CI. */
export const PG_ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** One storage configuration: extra env for the server plus cleanup. */
export interface Backend {
  name: string;
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/** A fresh PostgreSQL database + the shared Redis. */
export async function postgresBackend(): Promise<Backend> {
  const name = `cia_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name: 'postgres+redis',
    env: { DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL },
    async dispose() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** The embedded default: nothing to set. */
export async function embeddedBackend(): Promise<Backend> {
  return { name: 'embedded', env: {}, async dispose() {} };
}

/** Both backends, for `for (const make of BACKENDS)` loops. */
export const BACKENDS: { name: string; make: () => Promise<Backend> }[] = [
  { name: 'embedded', make: embeddedBackend },
  { name: 'postgres+redis', make: postgresBackend },
];
