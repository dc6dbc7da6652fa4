/**
 * Office engine factory (spec §4.6; design: "Office supervisor"). Settings come from the
 * environment: `OFFICE_POOL_SIZE` (default 2), `OFFICE_QUEUE_SIZE` (waiting conversions before
 * 429, default 16), `OFFICE_TIMEOUT_MS` (per conversion, queue wait excluded, default 60000),
 * `OFFICE_MAX_CONVERSIONS` (restart a worker after this many, default 200), `OFFICE_BINARY`,
 * `OFFICE_PYTHON` and `OFFICE_WORK_DIR` (profiles and scratch files, default `<dataDir>/office`).
 *
 * LibreOffice follows links inside the documents it opens (`<img src>` in HTML, linked images in
 * Office files), which would let a caller reach loopback, the metadata address or host files past
 * the SSRF guard. So each driver and its LibreOffice run under bubblewrap (`OFFICE_BWRAP_BIN`, the
 * sandbox's `/usr/bin/bwrap`) with no network at all and a file system of `/usr`, the few `/etc`
 * files fonts and the loader need, and the office work dir.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EngineOptions } from '../options.js';
import type { OfficeEngine } from './types.js';
import { OfficePool } from './pool.js';
import { DRIVER_SOURCE } from './driver-source.js';

function int(env: EngineOptions['env'], name: string, dflt: number, min = 1): number {
  const n = Number(env[name]);
  return Number.isInteger(n) && n >= min ? n : dflt;
}

/** Read-only host paths LibreOffice needs besides `/usr` (bound when present). */
const OFFICE_ETC = [
  '/etc/fonts',
  '/etc/libreoffice',
  '/etc/ld.so.cache',
  '/etc/localtime',
  '/etc/alternatives',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/var/cache/fontconfig',
];

/** The bubblewrap prefix that confines a driver and its LibreOffice; empty without bwrap. */
export function officeJail(bwrap: string, dir: string): string[] {
  const root = resolve(dir);
  if (!existsSync(bwrap)) return [];
  // Own pid namespace and no capabilities: /proc shows only the jail, so /proc/<pid>/root or
  // environ of the service cannot be read through a document link.
  const argv = [bwrap, '--unshare-net', '--unshare-uts', '--unshare-pid', '--cap-drop', 'ALL', '--die-with-parent'];
  argv.push('--ro-bind', '/usr', '/usr');
  for (const dir of ['lib', 'lib64', 'bin', 'sbin']) argv.push('--symlink', `usr/${dir}`, `/${dir}`);
  argv.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const path of OFFICE_ETC) argv.push('--ro-bind-try', path, path);
  // Profiles, the driver and the job files keep their host paths (the supervisor finds stale
  // processes by their profile path).
  argv.push('--bind', root, root, '--setenv', 'HOME', root, '--chdir', root, '--');
  return argv;
}

/**
 * The jail if it works here (one `true` run inside it, ~10 ms); otherwise LibreOffice runs
 * unconfined and the log says so loudly, since links inside documents then reach the network.
 */
function usableJail(jail: string[], log: EngineOptions['log']): string[] {
  const risk = 'LibreOffice runs unconfined: links inside converted documents can reach the network and host files';
  if (jail.length === 0) {
    log.warn({}, `bubblewrap not found (OFFICE_BWRAP_BIN): ${risk}`);
    return jail;
  }
  const probe = spawnSync(jail[0]!, [...jail.slice(1), '/bin/true'], { timeout: 10_000, encoding: 'utf8' });
  if (probe.status === 0) return jail;
  log.warn({ status: probe.status, stderr: probe.stderr?.trim() || probe.error?.message }, `bubblewrap cannot confine LibreOffice here: ${risk}`);
  return [];
}

/** Creates the LibreOffice pool; processes start at `warm()` or at the first conversion. */
export function createOfficeEngine(opts: EngineOptions): OfficeEngine & { close(): Promise<void> } {
  const env = opts.env;
  // Absolute: the driver turns paths into file URLs, and inside the jail `--chdir` moves the cwd.
  const root = resolve(env.OFFICE_WORK_DIR?.trim() || join(opts.dataDir, 'office'));
  mkdirSync(root, { recursive: true });
  const driverPath = join(root, 'driver.py');
  writeFileSync(driverPath, DRIVER_SOURCE);
  const pool = new OfficePool({
    size: int(env, 'OFFICE_POOL_SIZE', 2),
    queueLimit: int(env, 'OFFICE_QUEUE_SIZE', 16, 0),
    timeoutMs: int(env, 'OFFICE_TIMEOUT_MS', 60_000),
    maxConversions: int(env, 'OFFICE_MAX_CONVERSIONS', 200),
    startTimeoutMs: int(env, 'OFFICE_START_TIMEOUT_MS', 60_000),
    binary: env.OFFICE_BINARY?.trim() || '/usr/lib/libreoffice/program/soffice',
    python: env.OFFICE_PYTHON?.trim() || '/usr/bin/python3',
    driverPath,
    profileRoot: root,
    workDir: join(root, 'jobs'),
    jail: usableJail(officeJail(env.OFFICE_BWRAP_BIN?.trim() || '/usr/bin/bwrap', root), opts.log),
    log: opts.log,
  });
  // None left behind: if the service dies without a graceful close, kill the process groups.
  const onExit = () => pool.killNow();
  process.once('exit', onExit);
  return {
    convert: (input, o) => pool.convert(input, o),
    warm: () => pool.warm(),
    stats: () => pool.stats(),
    async close() {
      process.removeListener('exit', onExit);
      await pool.close();
    },
  };
}
