/**
 * Office engine factory (spec §4.6; design: "Office supervisor"). Settings come from the
 * environment: `OFFICE_POOL_SIZE` (default 2), `OFFICE_QUEUE_SIZE` (waiting conversions before
 * 429, default 16), `OFFICE_TIMEOUT_MS` (per conversion, queue wait excluded, default 60000),
 * `OFFICE_MAX_CONVERSIONS` (restart a worker after this many, default 200), `OFFICE_BINARY`,
 * `OFFICE_PYTHON` and `OFFICE_WORK_DIR` (profiles and scratch files, default `<dataDir>/office`).
 * ZIP-based inputs (OOXML, ODF) are admitted by their central directory (zip-admission.ts):
 * `OFFICE_ZIP_MAX_UNCOMPRESSED_MB` (declared total, default 256), `OFFICE_ZIP_MAX_RATIO` (one
 * entry over 1 MB, default 100) and `OFFICE_ZIP_MAX_ENTRIES` (default 10000). Each worker's
 * memory is capped at `OFFICE_MEMORY_MB` (default 1536; 0: no cap) by a memory cgroup where one
 * can be made (unless `OFFICE_MEMORY_CGROUP` is false), else by an address-space limit per
 * process (memory.ts). Workers run `OFFICE_NICE` (default 5; a key's further concurrent jobs lower, `TOOLS_NICE_STEP`) below the service's priority
 * (tools/priority.ts), so conversions yield a busy core to the thread that answers every call.
 *
 * Each worker runs confined (jail.ts): bubblewrap (`OFFICE_BWRAP_BIN`) with no network, only `/usr`,
 * fonts, its own profile and its current job (at `/job`), an environment of its own, and, when
 * the service is root, a uid of its own from a host-wide block claimed like the sandboxes' ones
 * (from `SANDBOX_UID_BASE`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EngineOptions } from '../options.js';
import type { OfficeEngine } from './types.js';
import { OfficePool } from './pool.js';
import { DRIVER_SOURCE } from './driver-source.js';
import { jailWorks } from './jail.js';
import { withOwnUids } from '../sandbox/confinement/uid-block.js';
import { canSwitchUid } from '../sandbox/confinement/os-sandbox.js';
import { SandboxCgroups, cgroupUnavailableWarning, cgroupWarning } from '../sandbox/confinement/cgroup.js';
import { intOr } from '../../util/int-setting.js';
import { niceSetting } from '../tools/settings.js';
import type { SetNice } from '../tools/priority.js';

/**
 * Creates the LibreOffice pool; processes start at `warm()` or at the first conversion.
 * `setThreadNice`: how a worker thread's nice is set (tests pass one that refuses raises, as the
 * kernel does for a service without CAP_SYS_NICE).
 */
export function createOfficeEngine(opts: EngineOptions, setThreadNice?: SetNice): OfficeEngine & { close(): Promise<void> } {
  const env = opts.env;
  // Absolute: the driver turns paths into file URLs, and inside the jail `--chdir` moves the cwd.
  const root = resolve(env.OFFICE_WORK_DIR?.trim() || join(opts.dataDir, 'office'));
  mkdirSync(root, { recursive: true });
  const driverPath = join(root, 'driver.py');
  writeFileSync(driverPath, DRIVER_SOURCE, { mode: 0o644 });
  // A block of uids no other engine or instance on this host uses (workers take base + index),
  // so a worker owns its profile alone; the same default base as the sandboxes (61000).
  const { settings, block } = withOwnUids({ uidBase: intOr(env, 'SANDBOX_UID_BASE', 61_000, 1000) }, canSwitchUid());
  const uidBase = block ? settings.uidBase : null;
  const bwrap = env.OFFICE_BWRAP_BIN?.trim() || '/usr/bin/bwrap';
  const binary = env.OFFICE_BINARY?.trim() || '/usr/lib/libreoffice/program/soffice';
  // Probed with the shape of a real worker's jail (uid drop included) on the work dir itself.
  const probe = { bwrap, driverPath, binary, profileDir: root, jobDir: root, uid: uidBase, env: { PATH: '/usr/bin:/bin' } };
  const memoryMb = intOr(env, 'OFFICE_MEMORY_MB', 1536, 0);
  // OFFICE_MEMORY_CGROUP=false keeps to the address-space limit even where a cgroup could be made.
  const cgroup = !['false', '0', 'no', 'off'].includes(env.OFFICE_MEMORY_CGROUP?.trim().toLowerCase() ?? '');
  const cgroups = memoryMb > 0 ? new SandboxCgroups(cgroup, cgroupWarning(opts.log), cgroupUnavailableWarning(opts.log, 'LibreOffice')) : undefined;
  const pool = new OfficePool({
    size: intOr(env, 'OFFICE_POOL_SIZE', 2),
    queueLimit: intOr(env, 'OFFICE_QUEUE_SIZE', 16, 0),
    timeoutMs: intOr(env, 'OFFICE_TIMEOUT_MS', 60_000),
    maxConversions: intOr(env, 'OFFICE_MAX_CONVERSIONS', 200),
    startTimeoutMs: intOr(env, 'OFFICE_START_TIMEOUT_MS', 60_000),
    binary,
    python: env.OFFICE_PYTHON?.trim() || '/usr/bin/python3',
    driverPath,
    profileRoot: root,
    workDir: join(root, 'jobs'),
    zip: {
      maxUncompressedBytes: intOr(env, 'OFFICE_ZIP_MAX_UNCOMPRESSED_MB', 256) * 1_000_000,
      maxRatio: intOr(env, 'OFFICE_ZIP_MAX_RATIO', 100),
      maxEntries: intOr(env, 'OFFICE_ZIP_MAX_ENTRIES', 10_000),
    },
    bwrap: jailWorks(probe, opts.log) ? bwrap : null,
    uidBase,
    env,
    memoryBytes: memoryMb * 1024 * 1024,
    cgroups,
    nice: niceSetting(env, 'OFFICE_NICE', 5),
    niceStep: niceSetting(env, 'TOOLS_NICE_STEP', 3),
    setThreadNice,
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
      cgroups?.close();
      block?.release();
    },
  };
}
