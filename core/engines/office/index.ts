/**
 * Office engine factory (spec §4.6; design: "Office supervisor"). Settings come from the
 * environment: `OFFICE_POOL_SIZE` (default 2), `OFFICE_QUEUE_SIZE` (waiting conversions before
 * 429, default 16), `OFFICE_TIMEOUT_MS` (per conversion, queue wait excluded, default 60000),
 * `OFFICE_MAX_CONVERSIONS` (restart a worker after this many, default 200), `OFFICE_BINARY`,
 * `OFFICE_PYTHON` and `OFFICE_WORK_DIR` (profiles and scratch files, default `<dataDir>/office`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineOptions } from '../options.js';
import type { OfficeEngine } from './types.js';
import { OfficePool } from './pool.js';
import { DRIVER_SOURCE } from './driver-source.js';

function int(env: EngineOptions['env'], name: string, dflt: number, min = 1): number {
  const n = Number(env[name]);
  return Number.isInteger(n) && n >= min ? n : dflt;
}

/** Creates the LibreOffice pool; processes start at `warm()` or at the first conversion. */
export function createOfficeEngine(opts: EngineOptions): OfficeEngine & { close(): Promise<void> } {
  const env = opts.env;
  const root = env.OFFICE_WORK_DIR?.trim() || join(opts.dataDir, 'office');
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
