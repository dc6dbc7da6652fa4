/**
 * A fresh DATA_DIR that already holds the suite's migrated embedded database, for tests whose
 * first command on it is the admin CLI rather than a test server. The CLI would copy the template
 * itself with fs.promises.cp over its ~1,000 files (about a second of CPU); `cp -a` is what
 * startServer does for its own fresh directories. Tests of a CLI making its store from nothing
 * keep using an empty directory.
 */
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EMBEDDED_DB_TEMPLATE } from './server.js';

/** A new temporary directory with `db/` copied from {@link EMBEDDED_DB_TEMPLATE}; the caller removes it. */
export async function seededDataDir(prefix: string): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  await promisify(execFile)('cp', ['-a', EMBEDDED_DB_TEMPLATE, join(dataDir, 'db')]);
  return dataDir;
}
