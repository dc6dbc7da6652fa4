/**
 * How the JavaScript pool starts its worker processes (issue 6: isolation is the feature). A
 * worker runs untrusted code in an isolate; should the code ever escape the isolate, it holds the
 * worker process. So each worker is a Node process inside the same bubblewrap sandbox as the
 * Python runs: no network namespace (its `fetch` is served by the service over the IPC channel),
 * a read-only root of `/usr` plus the worker's own bundled module and isolated-vm — nothing of
 * DATA_DIR, the repository or the service's `/proc` —, its own uid, a seccomp filter, a memory
 * cgroup where one is writable and an address-space limit always.
 *
 * The worker module is bundled once per engine start with esbuild into one CommonJS file (only
 * isolated-vm stays outside, bound read-only at `/opt/node_modules/isolated-vm`), so the sandbox
 * needs neither tsx nor the sources; the isolate bootstrap's files (`isolate/`) are copied beside
 * it, and the worker reads them from the directory its last argument names. Where bubblewrap
 * cannot run at all the workers are forked unconfined as before, with a warning in the log.
 */
import { execFile, fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { SandboxSettings } from '../settings.js';
import { spawnOsSandbox } from '../confinement/os-sandbox.js';
import { makeSharedDir, type RunDir } from '../confinement/run-dir.js';
import { findEsbuild } from './packages.js';
import { ISOLATE_FILES } from './runtime.js';

const run = promisify(execFile);
/** Where the bundle directory appears inside a worker's sandbox. */
const INSIDE = '/opt/js-worker';
const NODE = '/usr/bin/node';
/**
 * V8's trap-handler bounds checks reserve about 10 GB of address space per WebAssembly memory,
 * which no address-space limit leaves room for; inline bounds checks need none.
 */
const NODE_FLAGS = ['--no-node-snapshot', '--disable-wasm-trap-handler'];

/** What a worker needs besides `/usr`: the bundled module, the isolate bootstrap and isolated-vm. */
export interface WorkerFiles {
  /** The directory holding `worker.cjs` and `isolate/`, or undefined when the workers are forked unconfined. */
  bundle?: RunDir;
  ivmDir: string;
}

/** Where the worker entry lives: `.ts` under tsx (tests, dev), `.js` when built. */
function workerEntry(): { file: string; ts: boolean } {
  const here = fileURLToPath(import.meta.url);
  const ts = here.endsWith('.ts');
  return { file: here.replace(/worker-process\.(ts|js)$/, `worker.${ts ? 'ts' : 'js'}`), ts };
}

/** The bootstrap's files beside this module (the build copies them to dist, see ../assets.ts). */
const ISOLATE_DIR = fileURLToPath(new URL('./isolate/', import.meta.url));

/** The memory cgroup limit of one worker: the isolate, the next one prepared, and Node itself. */
export function workerMemoryBytes(s: SandboxSettings): number {
  return (2 * s.jsMemoryMb + 256) * 1024 * 1024;
}

/**
 * Bundles the worker and checks that bubblewrap runs here; on failure (no bwrap, no user
 * namespaces) `warn` hears why and the workers are forked unconfined.
 */
export async function prepareWorkerFiles(s: SandboxSettings, uid: number | null, warn: (obj: object, msg: string) => void): Promise<WorkerFiles> {
  const ivmDir = dirname(createRequire(import.meta.url).resolve('isolated-vm/package.json'));
  const unconfined = (reason: string): WorkerFiles => {
    warn({ reason }, 'JavaScript workers run without an OS sandbox (no bubblewrap here): an isolate escape would reach the host');
    return { ivmDir };
  };
  if (!existsSync(s.bwrapBin)) return unconfined(`${s.bwrapBin} not found`);
  try {
    // Launched the way the workers are (seccomp filter included), so a kernel that refuses any
    // part of it is found here, not by workers dying one after another.
    await probeSandbox({ bwrapBin: s.bwrapBin, uid, argv: ['/usr/bin/true'], network: false, work: { tmpfsMb: 1 }, tmpfsMb: 1, env: {} });
  } catch (err) {
    return unconfined(err instanceof Error ? err.message : String(err));
  }
  const bundle = await makeSharedDir();
  try {
    const { file } = workerEntry();
    await run(findEsbuild(), [
      file, '--bundle', '--platform=node', '--format=cjs', '--target=node20', '--external:isolated-vm',
      '--log-level=error', '--legal-comments=none', `--outfile=${join(bundle.path, 'worker.cjs')}`,
    ], { timeout: 60_000 });
    // Copied, not bound from the install: the shared directory is readable by every worker uid.
    await mkdir(join(bundle.path, 'isolate'), { mode: 0o755 });
    for (const f of ISOLATE_FILES) await copyFile(join(ISOLATE_DIR, f), join(bundle.path, 'isolate', f));
    return { bundle, ivmDir };
  } catch (err) {
    await bundle.remove();
    throw err;
  }
}

/** Options of one worker process. */
export interface LaunchOptions {
  settings: SandboxSettings;
  files: WorkerFiles;
  uid: number | null;
  /** Memory cgroup directory, if any. */
  cgroup?: string;
}

/** Starts a worker: fd 3 is its IPC channel, stderr a pipe, stdin and stdout closed. */
export function launchWorker(o: LaunchOptions): ChildProcess {
  const s = o.settings;
  const args = [String(s.jsMemoryMb), String(s.maxOutputLines), String(s.maxOutputBytes)];
  const env = { PATH: '/usr/bin:/bin', NODE_ENV: 'production', HOME: '/work' };
  if (!o.files.bundle) {
    const { file, ts } = workerEntry();
    return fork(file, [...args, ISOLATE_DIR], {
      execArgv: ts ? [...NODE_FLAGS, '--import', import.meta.resolve('tsx')] : NODE_FLAGS,
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
      ...(o.uid !== null ? { uid: o.uid, gid: o.uid } : {}),
    });
  }
  return spawnOsSandbox({
    bwrapBin: s.bwrapBin,
    uid: o.uid,
    argv: [NODE, ...NODE_FLAGS, `${INSIDE}/worker.cjs`, ...args, `${INSIDE}/isolate`],
    network: false,
    work: { tmpfsMb: 1 },
    tmpfsMb: 1,
    env,
    ipc: true,
    roBinds: [
      [o.files.bundle.path, INSIDE],
      [o.files.ivmDir, '/opt/node_modules/isolated-vm'],
    ],
    cgroup: o.cgroup,
    // CODE_NICE until a run of a busy key moves it lower (engine.ts, ../run-priority.ts).
    nice: s.nice,
    limits: {
      // Node's own threads (libuv, V8 platform, isolated-vm) with room; the uid is the worker's own.
      nproc: o.uid !== null ? 128 : undefined,
      // V8 reserves 1.1 to 2.4 GB of address space (measured over 600 runs; isolates are released
      // lazily): 4 GB of room for that, the rest bounds what the worker really maps.
      asBytes: workerMemoryBytes(s) + 4096 * 1024 * 1024,
      fsizeBytes: 1024 * 1024,
      nofile: 256,
      cpuSeconds: s.jsRecycleAfter * (Math.ceil(s.timeoutMs / 1000) + 1),
    },
  });
}

/** The signal behind a launcher's exit status 128 + n, if any. */
export function signalOf(code: number | null): NodeJS.Signals | null {
  if (code === null || code <= 128) return null;
  const n = code - 128;
  return (Object.entries(constants.signals).find(([, v]) => v === n)?.[0] as NodeJS.Signals | undefined) ?? null;
}

/** Runs a sandboxed command to its end; rejects unless it exits 0 within 10 s. */
function probeSandbox(spec: Parameters<typeof spawnOsSandbox>[0]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnOsSandbox(spec);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`bubblewrap probe ended with ${signal ?? `status ${code}`}: ${stderr.trim().slice(0, 500)}`));
    });
  });
}
