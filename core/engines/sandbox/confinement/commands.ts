/**
 * The `commands` step (spec §4.8: "shell command run before the code, for installing packages"):
 * `/bin/sh -c <commands>` in an OS sandbox whose only writable place is the run directory, whose
 * only network is the guarded egress proxy (public addresses, ports 80/443), and which sees
 * nothing else of the host. Installs land in the run directory:
 * npm's `node_modules`, and pip's `--target` `.packages` (put on `sys.path` by the runner).
 */
import type { ExecutionErrorInfo, SandboxRunRequest } from '../types.js';
import type { SandboxSettings } from '../settings.js';
import type { UidLease, UidPool } from './uid-pool.js';
import type { SandboxCgroups } from './cgroup.js';
import { killSandbox, spawnOsSandbox } from './os-sandbox.js';
import { makeRunDir } from './run-dir.js';
import { driveProcess, type ProcessOutcome } from './process-run.js';
import type { ChildProcess } from 'node:child_process';
import { PROXY_ENV, forwarderSource, startEgressProxy } from './egress-proxy.js';
import type { RunPriorities } from '../run-priority.js';

/** Environment of the commands step: caches and installs stay inside `/work`. */
const COMMANDS_ENV: Record<string, string> = {
  HOME: '/work/.home',
  PATH: '/usr/local/bin:/usr/bin:/bin',
  LANG: 'C.UTF-8',
  // npm: no lifecycle scripts (native builds cannot work in the isolate anyway), no noise.
  npm_config_cache: '/work/.home/.npm',
  npm_config_userconfig: '/dev/null',
  npm_config_ignore_scripts: 'true',
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
  npm_config_loglevel: 'error',
  // pip: install into the run's own directory; /usr is read-only anyway.
  PIP_TARGET: '/work/.packages',
  PIP_BREAK_SYSTEM_PACKAGES: '1',
  PIP_DISABLE_PIP_VERSION_CHECK: '1',
  PIP_NO_WARN_SCRIPT_LOCATION: '1',
  PYTHONDONTWRITEBYTECODE: '1',
};

/** Options of one commands step: where it runs, as whom, and in which cgroup. */
export interface CommandsOptions {
  settings: SandboxSettings;
  uid: number | null;
  runDir: string;
  signal?: AbortSignal;
  cgroup?: string;
  /** Nice value of everything the run starts in its directory (its key's fair share, ../run-priority.ts). */
  nice?: number;
}

/** Runs the commands; resolves with an error object when they fail or time out. */
export async function runCommands(commands: string, opts: CommandsOptions): Promise<ExecutionErrorInfo | undefined> {
  const s = opts.settings;
  const proxy = await startEgressProxy(`${opts.runDir}.sock`, opts.uid, { ...s.egress, packageHosts: s.packageHosts });
  // The proxy is closed on every path: a spawn that throws (text no process can be given) once
  // left its socket listening for good (issue 18, finding 1).
  let outcome: ProcessOutcome;
  try {
    outcome = await driveProcess(spawnCommands(commands, opts, proxy.socketPath), {
      uid: opts.uid,
      timeoutMs: s.commandsTimeoutMs,
      maxLines: 200,
      maxBytes: 64 * 1024,
      signal: opts.signal,
    });
  } catch (err) {
    return { name: 'CommandsError', value: 'commands could not be started', traceback: err instanceof Error ? err.message : String(err) };
  } finally {
    await proxy.close();
  }
  return commandsOutcome(outcome, s);
}

/** Starts the commands sandbox: the forwarder as the commands' parent, the proxy socket bound in. */
function spawnCommands(commands: string, opts: CommandsOptions, socketPath: string): ChildProcess {
  const s = opts.settings;
  return spawnOsSandbox({
    bwrapBin: s.bwrapBin,
    uid: opts.uid,
    argv: ['/usr/bin/node', '-e', forwarderSource()],
    network: true,
    work: { hostDir: opts.runDir },
    tmpfsMb: s.tmpfsMb,
    env: { ...COMMANDS_ENV, ...PROXY_ENV, SANDBOX_COMMANDS: commands },
    binds: [[socketPath, '/run/egress.sock']],
    cgroup: opts.cgroup,
    nice: opts.nice,
    limits: {
      nproc: Math.max(256, s.maxProcesses),
      asBytes: s.commandsMemoryMb * 1024 * 1024,
      fsizeBytes: 256 * 1024 * 1024,
      nofile: 4096,
      cpuSeconds: Math.ceil(s.commandsTimeoutMs / 1000) + 5,
    },
  });
}

/** Continues {@link runCommands} with how the step ended. */
function commandsOutcome(outcome: ProcessOutcome, s: SandboxSettings): ExecutionErrorInfo | undefined {
  if (outcome.timedOut) {
    return {
      name: 'CommandsTimeoutError',
      value: `commands did not finish within ${Math.round(s.commandsTimeoutMs / 1000)} seconds`,
      traceback: tail(outcome.stdout, outcome.stderr),
    };
  }
  if (outcome.aborted) return { name: 'CommandsError', value: 'commands were stopped', traceback: '' };
  if (outcome.exitCode !== 0) {
    const status = outcome.exitCode === null ? `was killed by ${outcome.signal}` : `exited with status ${outcome.exitCode}`;
    return { name: 'CommandsError', value: `commands ${status}`, traceback: tail(outcome.stdout, outcome.stderr) };
  }
  return undefined;
}

/** The last lines of the step's output, for the error's traceback field. */
function tail(stdout: string[], stderr: string[]): string {
  return [...stdout, ...stderr].slice(-40).join('\n');
}

/** A run whose `commands` step succeeded (or had none): its uid lease and options for what runs next in its directory. */
export interface CommandsStep {
  lease: UidLease;
  opts: CommandsOptions;
}

/**
 * Leases a uid from `pool` and a fresh run directory, runs `req.commands` there when there are
 * any, then `next` (unless they failed, which `failed` turns into the answer). The directory is a
 * `SANDBOX_RUN_DIR_MB` tmpfs for a run with commands (packages), else one of `SANDBOX_TMPFS_MB`
 * like a run's own work dir. The run counts for its key in `o.priorities` from the lease on, and
 * everything it starts runs at the nice value that gives (`opts.nice`). Whatever happens, every
 * process of the uid is killed, the directory removed, the uid given back and the run uncounted.
 */
export async function inRunDir<T>(
  req: SandboxRunRequest,
  o: { pool: UidPool; cgroups: SandboxCgroups; settings: SandboxSettings; priorities?: RunPriorities },
  failed: (err: ExecutionErrorInfo) => T,
  next: (step: CommandsStep) => Promise<T>,
): Promise<T> {
  const commands = req.commands?.trim() ? req.commands : undefined;
  const lease = await o.pool.acquire(req.signal);
  const priority = o.priorities?.start(req.owner);
  try {
    const dir = await makeRunDir(lease.uid, commands ? o.settings.runDirMb : o.settings.tmpfsMb);
    try {
      const cgroup = commands ? o.cgroups.prepare(lease.uid, o.settings.commandsMemoryMb * 1024 * 1024, 'commands', Math.max(256, o.settings.maxProcesses)) : undefined;
      const opts = { settings: o.settings, uid: lease.uid, runDir: dir.path, signal: req.signal, cgroup, nice: priority?.nice };
      const err = commands ? await runCommands(commands, opts) : undefined;
      if (err) return failed(err);
      return await next({ lease, opts });
    } finally {
      await killSandbox(undefined, lease.uid);
      await dir.remove();
    }
  } finally {
    priority?.end();
    lease.release();
  }
}
