/**
 * `npm run admin -- <command>`: the admin operations on the configured store (DATABASE_URL, or
 * the embedded database under DATA_DIR). PGlite belongs to one process: while a server holds the
 * embedded store, the command goes through that server's admin API (with ADMIN_TOKEN) instead.
 *
 *   keys create --name NAME [--credits N] [--rate N] [--budget N] [--policy JSON]
 *   keys list [--page N] [--limit N] [--search S]
 *   keys get ID
 *   keys rotate ID
 *   stats [--from ISO] [--to ISO] [--bucket hour|day] [--group-by lane|capability|provider|status|key]
 *   keys update ID [--name S] [--active true|false] [--rate N] [--budget N|null] [--policy JSON]
 *   credits add ID AMOUNT --reason TEXT
 *   credits deduct ID AMOUNT --reason TEXT
 *   usage ID [--page N] [--limit N] [--status success|error|HTTP] [--object-type T] [--object-id ID] [--provider P]
 *   transactions ID [--page N] [--limit N]
 *   files delete ID
 *   jobs list [--status S] [--key ID] [--page N] [--limit N]
 *   jobs watch ID
 *   jobs cancel ID
 *
 * The commands themselves are in cli-run.ts; this entry hands them the process's arguments,
 * environment and streams.
 */
import { runCli } from './cli-run.js';

process.exitCode = await runCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr });
