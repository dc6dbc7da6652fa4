/**
 * Sandbox settings read from the environment at engine creation (README "Configuration").
 * Defaults follow spec §8.2 (10-second execution timeout) and the limits of issue 6.
 */
import { availableParallelism } from 'node:os';
import { guardPolicyFromEnv, type GuardPolicy } from '../http/guard.js';
import { intSetting } from '../../util/int-setting.js';
import { niceSetting } from '../tools/settings.js';

/** Limits and pool sizes shared by both sandboxes. */
export interface SandboxSettings {
  /** Wall-clock limit of the code (spec §8.2: 10 seconds). */
  timeoutMs: number;
  /** Wall-clock limit of the `commands` step (package installs take longer than code). */
  commandsTimeoutMs: number;
  /** Heap limit of one JavaScript isolate. */
  jsMemoryMb: number;
  /** Memory of one Python run: each process's address space and, in a memory cgroup, the whole run. */
  pythonMemoryMb: number;
  /** Memory of the `commands` and bundling steps: per process and, in a memory cgroup, in all. */
  commandsMemoryMb: number;
  /** Worker processes holding JavaScript isolates. */
  jsWorkers: number;
  /** Runs a JavaScript worker serves before it is replaced by a fresh process. */
  jsRecycleAfter: number;
  /** Python sandboxes (and `commands` steps) running at once; each gets its own uid. */
  maxConcurrent: number;
  /** Runs allowed to wait for a free worker or uid before the service answers 429. */
  maxQueue: number;
  /** Lines kept per stream before the output is cut. */
  maxOutputLines: number;
  /** Bytes kept per stream before the output is cut. */
  maxOutputBytes: number;
  /** Processes and threads one Python run may have (RLIMIT_NPROC, per uid). */
  maxProcesses: number;
  /** Largest file a run may write (RLIMIT_FSIZE). */
  maxFileMb: number;
  /** Size of the run's tmpfs work dir and /tmp. */
  tmpfsMb: number;
  /** Size of the tmpfs work dir of one run with `commands` (as root). */
  runDirMb: number;
  /** First uid (and gid) of the range runs are started under when the service is root. */
  uidBase: number;
  /** The CPython binary; a real interpreter, not a shim on PATH. */
  pythonBin: string;
  /** The bubblewrap binary. */
  bwrapBin: string;
  /** Which destinations the `commands` step may reach (the HTTP engine's SSRF settings). */
  egress: GuardPolicy;
  /** Package indexes the `commands` step may reach whatever their address (operator-trusted). */
  packageHosts: Set<string>;
  /** Nice value of a key's only run (0 to 19), and of every sandbox and worker before it has a run. */
  nice: number;
  /** How much lower each further concurrent run of the same key is scheduled (run-priority.ts). */
  niceStep: number;
}

/** Documented sandbox variables: name → description and default, for the README table. */
export const SANDBOX_SETTINGS_DOC: Record<string, { description: string; default: string }> = {
  SANDBOX_TIMEOUT_MS: { description: 'Wall-clock limit of submitted code.', default: '10000' },
  SANDBOX_COMMANDS_TIMEOUT_MS: { description: 'Wall-clock limit of the `commands` step (package installs).', default: '60000' },
  SANDBOX_JS_MEMORY_MB: { description: 'Heap limit of one JavaScript isolate.', default: '128' },
  SANDBOX_PYTHON_MEMORY_MB: { description: 'Memory of one Python run: each process\'s address space and, through a memory cgroup, the run as a whole.', default: '512' },
  SANDBOX_COMMANDS_MEMORY_MB: { description: 'Memory of the `commands` step: per process and, through a memory cgroup, in all.', default: '2048' },
  SANDBOX_JS_WORKERS: { description: 'Worker processes holding JavaScript isolates.', default: 'CPU count, 2 to 4' },
  SANDBOX_JS_RECYCLE_AFTER: { description: 'Runs a JavaScript worker process serves before it is replaced by a fresh one.', default: '500' },
  SANDBOX_MAX_CONCURRENT: { description: 'Python runs and `commands` steps at once (one uid each).', default: '8' },
  SANDBOX_MAX_QUEUE: { description: 'Runs that may wait for a worker before 429.', default: '200' },
  SANDBOX_MAX_OUTPUT_LINES: { description: 'Lines kept per output stream.', default: '1000' },
  SANDBOX_MAX_OUTPUT_BYTES: { description: 'Bytes kept per output stream.', default: '1000000' },
  SANDBOX_MAX_PROCESSES: { description: 'Processes/threads of one Python run (RLIMIT_NPROC).', default: '64' },
  SANDBOX_MAX_FILE_MB: { description: 'Largest file a run may write.', default: '16' },
  SANDBOX_TMPFS_MB: { description: 'Size of the run\'s tmpfs work dir.', default: '64' },
  SANDBOX_RUN_DIR_MB: {
    description: 'Size of the work dir of a run with `commands`, a tmpfs of its own when the service is root; a run that fills it gets `No space left on device`, other runs keep theirs.',
    default: '2048',
  },
  SANDBOX_UID_BASE: { description: 'First uid of the range sandboxes run under when the service runs as root.', default: '61000' },
  SANDBOX_PYTHON_BIN: { description: 'CPython interpreter.', default: '/usr/bin/python3' },
  SANDBOX_BWRAP_BIN: { description: 'bubblewrap binary.', default: '/usr/bin/bwrap' },
  SANDBOX_PACKAGE_HOSTS: {
    description: 'Package indexes `commands` may reach even at a non-public address (other hosts must be public; ports 80/443 only).',
    default: 'registry.npmjs.org,pypi.org,files.pythonhosted.org',
  },
  CODE_NICE: {
    description: 'How much lower than the service a code run is scheduled when it is its key\'s only run going, 0 to 19: its processes\' nice value and their session\'s scheduling group (autogroup).',
    default: '5',
  },
  CODE_NICE_STEP: { description: 'How much lower again each further concurrent code run of the same key is scheduled (capped at 19).', default: '3' },
};

/** Reads the sandbox settings; throws with the variable's name on a bad value. */
export function loadSandboxSettings(env: Record<string, string | undefined>): SandboxSettings {
  return {
    timeoutMs: intSetting(env, 'SANDBOX_TIMEOUT_MS', 10_000, 100),
    commandsTimeoutMs: intSetting(env, 'SANDBOX_COMMANDS_TIMEOUT_MS', 60_000, 1000),
    jsMemoryMb: intSetting(env, 'SANDBOX_JS_MEMORY_MB', 128, 8),
    pythonMemoryMb: intSetting(env, 'SANDBOX_PYTHON_MEMORY_MB', 512, 64),
    commandsMemoryMb: intSetting(env, 'SANDBOX_COMMANDS_MEMORY_MB', 2048, 256),
    jsWorkers: intSetting(env, 'SANDBOX_JS_WORKERS', Math.min(4, Math.max(2, availableParallelism()))),
    jsRecycleAfter: intSetting(env, 'SANDBOX_JS_RECYCLE_AFTER', 500),
    maxConcurrent: intSetting(env, 'SANDBOX_MAX_CONCURRENT', 8),
    maxQueue: intSetting(env, 'SANDBOX_MAX_QUEUE', 200, 0),
    maxOutputLines: intSetting(env, 'SANDBOX_MAX_OUTPUT_LINES', 1000),
    maxOutputBytes: intSetting(env, 'SANDBOX_MAX_OUTPUT_BYTES', 1_000_000),
    maxProcesses: intSetting(env, 'SANDBOX_MAX_PROCESSES', 64),
    maxFileMb: intSetting(env, 'SANDBOX_MAX_FILE_MB', 16),
    tmpfsMb: intSetting(env, 'SANDBOX_TMPFS_MB', 64),
    runDirMb: intSetting(env, 'SANDBOX_RUN_DIR_MB', 2048, 64),
    uidBase: intSetting(env, 'SANDBOX_UID_BASE', 61_000, 1000),
    pythonBin: env.SANDBOX_PYTHON_BIN?.trim() || '/usr/bin/python3',
    bwrapBin: env.SANDBOX_BWRAP_BIN?.trim() || '/usr/bin/bwrap',
    egress: guardPolicyFromEnv(env),
    packageHosts: new Set(
      (env.SANDBOX_PACKAGE_HOSTS ?? 'registry.npmjs.org,pypi.org,files.pythonhosted.org')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
    nice: niceSetting(env, 'CODE_NICE', 5),
    niceStep: niceSetting(env, 'CODE_NICE_STEP', 3),
  };
}
