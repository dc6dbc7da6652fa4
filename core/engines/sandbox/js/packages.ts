/**
 * Makes packages installed by `commands` usable inside an isolate (spec §4.8, issue 6): after the
 * commands step, esbuild bundles the user's code with what it imports or requires from the run's
 * `node_modules` into one ES module. esbuild runs inside the same OS sandbox (no network), so a
 * symlink planted by the commands cannot make it read host files. Node built-ins stay external
 * and fail at link or call time with a clear message. `installAndBundle` runs both steps for a
 * run of the JavaScript pool.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { writeFile, chown } from 'node:fs/promises';
import type { ExecutionErrorInfo, SandboxRunRequest } from '../types.js';
import type { SandboxSettings } from '../settings.js';
import type { UidPool } from '../confinement/uid-pool.js';
import type { SandboxCgroups } from '../confinement/cgroup.js';
import { killSandbox, spawnOsSandbox } from '../confinement/os-sandbox.js';
import { inRunDir } from '../confinement/commands.js';
import type { RunPriorities } from '../run-priority.js';
import { driveProcess } from '../confinement/process-run.js';
import { NODE_BUILTINS } from './runtime.js';

let esbuildBin: string | undefined;

/** Path of the esbuild binary that ships with the esbuild npm package. */
export function findEsbuild(): string {
  if (esbuildBin) return esbuildBin;
  const req = createRequire(import.meta.url);
  const pkg = dirname(req.resolve('esbuild/package.json'));
  esbuildBin = join(pkg, 'bin', 'esbuild');
  return esbuildBin;
}

const BUNDLE_CAP = 32 * 1024 * 1024;

/** Bundles `/work/main.js` of the run directory; returns the module source or an error object. */
export async function bundleRun(
  code: string,
  opts: { settings: SandboxSettings; uid: number | null; runDir: string; signal?: AbortSignal; cgroup?: string; nice?: number },
): Promise<{ bundle: string } | { error: ExecutionErrorInfo }> {
  const entry = join(opts.runDir, '.sandbox-main.mjs');
  await writeFile(entry, code, { mode: 0o600, flag: 'wx' });
  if (opts.uid !== null) await chown(entry, opts.uid, opts.uid);
  const externals = NODE_BUILTINS.flatMap((m) => [`--external:${m}`, `--external:${m}/*`]);
  const child = spawnOsSandbox({
    bwrapBin: opts.settings.bwrapBin,
    uid: opts.uid,
    argv: [
      '/opt/esbuild',
      '/work/.sandbox-main.mjs',
      '--bundle',
      '--format=esm',
      '--platform=browser',
      '--target=es2022',
      '--log-level=error',
      '--color=false',
      '--legal-comments=none',
      '--define:process.env.NODE_ENV="production"',
      '--external:node:*',
      ...externals,
    ],
    network: false,
    work: { hostDir: opts.runDir },
    tmpfsMb: opts.settings.tmpfsMb,
    env: { HOME: '/work', PATH: '/usr/bin:/bin' },
    roBinds: [[findEsbuild(), '/opt/esbuild']],
    cgroup: opts.cgroup,
    nice: opts.nice,
    limits: { nproc: 256, asBytes: opts.settings.commandsMemoryMb * 1024 * 1024, fsizeBytes: 64 * 1024 * 1024, nofile: 1024, cpuSeconds: 60 },
  });
  const outcome = await driveProcess(child, { uid: opts.uid, timeoutMs: 30_000, maxLines: 10_000_000, maxBytes: BUNDLE_CAP, signal: opts.signal });
  if (outcome.timedOut || outcome.exitCode !== 0) {
    const why = outcome.stderr.join('\n').replace(/\/work\/\.sandbox-main\.mjs/g, 'main.js').trim();
    return { error: { name: 'BundleError', value: 'The code and its packages could not be bundled for the sandbox.', traceback: why || (outcome.timedOut ? 'timed out' : '') } };
  }
  if (outcome.truncated) {
    return { error: { name: 'BundleError', value: `The bundled packages exceed ${BUNDLE_CAP / 1024 / 1024} MB.`, traceback: '' } };
  }
  return { bundle: outcome.stdout.join('\n') };
}

/**
 * Runs `commands` in a fresh run directory under a uid of `pool`, then bundles the code with what
 * they installed; everything the step started is killed and the directory removed afterwards.
 */
export async function installAndBundle(
  req: SandboxRunRequest,
  o: { pool: UidPool; cgroups: SandboxCgroups; settings: SandboxSettings; priorities?: RunPriorities },
): Promise<{ bundle: string } | { error: ExecutionErrorInfo }> {
  return inRunDir<{ bundle: string } | { error: ExecutionErrorInfo }>(
    req,
    o,
    (error) => ({ error }),
    async ({ opts }) => {
      try {
        return await bundleRun(req.code, opts);
      } catch (err) {
        return { error: { name: 'BundleError', value: 'The code and its packages could not be bundled for the sandbox.', traceback: String(err) } };
      }
    },
  );
}
