/**
 * The Python sandbox (spec §4.8, issue 6): `/usr/bin/python3` in a bubblewrap sandbox per run,
 * under its own unprivileged uid, with rlimits, a fresh tmpfs work dir, no network and no host
 * files, killed with its process tree at the time limit. To cut start latency a few sandboxes are
 * started ahead of requests; each one waits for code on stdin and serves exactly one run, so no
 * run ever sees another's leftovers.
 */
import { withOwnUids, type UidBlock } from '../confinement/uid-block.js';
import type { ChildProcess } from 'node:child_process';
import type { PluginLogger } from '../../../plugin/types.js';
import type { ExecutionErrorInfo, PythonSandbox, SandboxResult, SandboxRunRequest } from '../types.js';
import type { SandboxSettings } from '../settings.js';
import { UidPool, type UidLease } from '../confinement/uid-pool.js';
import { canSwitchUid, killSandbox, spawnOsSandbox } from '../confinement/os-sandbox.js';
import { SandboxCgroups, cgroupUnavailableWarning, cgroupWarning } from '../confinement/cgroup.js';
import { driveProcess, type ProcessOutcome } from '../confinement/process-run.js';
import { runnerArgv } from './runner.js';
import { afterCommands } from '../confinement/commands.js';
import { removeRunRoot } from '../confinement/run-dir.js';
import { capError, timeoutError } from '../output.js';

const PY_ENV: Record<string, string> = {
  HOME: '/work',
  PATH: '/usr/bin:/bin',
  LANG: 'C.UTF-8',
  PYTHONUNBUFFERED: '1',
  PYTHONDONTWRITEBYTECODE: '1',
  PYTHONIOENCODING: 'utf-8',
};

interface Warm {
  child: ChildProcess;
  lease: UidLease;
  /** Memory cgroup the sandbox runs in, if any. */
  cgroup?: string;
  /** Drops the entry if the idle sandbox dies before it is used. */
  onExit?: () => void;
}

/** Python sandbox engine with a small set of pre-started sandboxes. */
export class PythonSandboxEngine implements PythonSandbox {
  readonly kind = 'python' as const;
  private readonly pool: UidPool;
  private readonly warm: Warm[] = [];
  private readonly warmTarget: number;
  private readonly cgroups: SandboxCgroups;
  private closed = false;

  private readonly settings: SandboxSettings;
  /** This engine's uids, apart from every other engine's on the host. */
  private readonly uids: UidBlock | undefined;

  constructor(
    settings: SandboxSettings,
    private readonly log: PluginLogger,
  ) {
    ({ settings: this.settings, block: this.uids } = withOwnUids(settings, canSwitchUid()));
    settings = this.settings;
    this.pool = new UidPool(settings.maxConcurrent, canSwitchUid() ? settings.uidBase : null, settings.maxQueue);
    this.warmTarget = Math.min(3, settings.maxConcurrent - 1);
    this.cgroups = new SandboxCgroups(canSwitchUid(), cgroupWarning(log), cgroupUnavailableWarning(log, 'Python runs'));
  }

  /** Starts the pre-started sandboxes (called at engine creation). */
  prewarm(): void {
    while (!this.closed && this.warm.length < this.warmTarget) {
      const lease = this.pool.tryAcquire();
      if (!lease) return;
      const cgroup = this.cgroupFor(lease.uid);
      const child = this.spawn(lease.uid, undefined, cgroup);
      const entry: Warm = { child, lease, cgroup };
      child.on('error', () => undefined);
      entry.onExit = () => {
        const i = this.warm.indexOf(entry);
        if (i >= 0) {
          this.warm.splice(i, 1);
          lease.release();
        }
      };
      child.once('exit', entry.onExit);
      this.warm.push(entry);
    }
  }

  /** The uid's memory cgroup, limited to one Python run's memory. */
  private cgroupFor(uid: number | null): string | undefined {
    return this.cgroups.prepare(uid, this.settings.pythonMemoryMb * 1024 * 1024, 'code', this.settings.maxProcesses);
  }

  private spawn(uid: number | null, runDir: string | undefined, cgroup: string | undefined): ChildProcess {
    const s = this.settings;
    return spawnOsSandbox({
      bwrapBin: s.bwrapBin,
      uid,
      // The runner sets its rlimits (argv) before it reads any code: one exec fewer per run.
      argv: runnerArgv(s.pythonBin, {
        nproc: s.maxProcesses,
        asBytes: s.pythonMemoryMb * 1024 * 1024,
        fsizeBytes: s.maxFileMb * 1024 * 1024,
        nofile: 256,
        cpuSeconds: Math.ceil(s.timeoutMs / 1000) + 1,
      }),
      network: false,
      work: runDir ? { hostDir: runDir } : { tmpfsMb: s.tmpfsMb },
      tmpfsMb: s.tmpfsMb,
      env: PY_ENV,
      resultFd: true,
      cgroup,
    });
  }

  /** Runs Python code; see {@link PythonSandbox.run}. */
  async run(req: SandboxRunRequest): Promise<SandboxResult> {
    const timeoutMs = req.timeoutMs ?? this.settings.timeoutMs;
    if (req.commands?.trim()) return this.runWithCommands(req, timeoutMs);
    let entry = this.takeWarm();
    if (!entry) {
      const lease = await this.pool.acquire(req.signal);
      const cgroup = this.cgroupFor(lease.uid);
      entry = { lease, cgroup, child: this.spawn(lease.uid, undefined, cgroup) };
    }
    try {
      const ooms = this.cgroups.oomKills(entry.cgroup);
      const outcome = await this.drive(entry, req.code, timeoutMs, req.signal);
      return this.toResult(outcome, timeoutMs, this.cgroups.oomKills(entry.cgroup) > ooms);
    } finally {
      entry.lease.release();
      this.prewarm();
    }
  }

  private takeWarm(): Warm | undefined {
    while (this.warm.length > 0) {
      const entry = this.warm.shift()!;
      if (entry.onExit) entry.child.off('exit', entry.onExit);
      if (entry.child.exitCode === null && entry.child.signalCode === null) return entry;
      entry.lease.release();
    }
    return undefined;
  }

  private drive(entry: Warm, code: string, timeoutMs: number, signal?: AbortSignal): Promise<ProcessOutcome> {
    return driveProcess(entry.child, {
      uid: entry.lease.uid,
      stdin: code,
      timeoutMs,
      maxLines: this.settings.maxOutputLines,
      maxBytes: this.settings.maxOutputBytes,
      signal,
    });
  }

  private runWithCommands(req: SandboxRunRequest, timeoutMs: number): Promise<SandboxResult> {
    return afterCommands(
      req,
      { pool: this.pool, cgroups: this.cgroups, settings: this.settings },
      (error): SandboxResult => ({ stdout: [], stderr: [], truncated: false, error, durationMs: 0 }),
      async ({ lease, opts }) => {
        // Nothing the commands left running may share the code's run.
        await killSandbox(undefined, lease.uid);
        const cgroup = this.cgroupFor(lease.uid);
        const ooms = this.cgroups.oomKills(cgroup);
        const outcome = await this.drive({ lease, cgroup, child: this.spawn(lease.uid, opts.runDir, cgroup) }, req.code, timeoutMs, req.signal);
        return this.toResult(outcome, timeoutMs, this.cgroups.oomKills(cgroup) > ooms);
      },
    );
  }

  private toResult(o: ProcessOutcome, timeoutMs: number, outOfMemory: boolean): SandboxResult {
    const base = { stdout: o.stdout, stderr: o.stderr, truncated: o.truncated, durationMs: o.durationMs };
    if (o.timedOut) return { ...base, error: timeoutError(timeoutMs) };
    if (o.aborted) return { ...base, error: { name: 'AbortError', value: 'The run was stopped.', traceback: '' } };
    const reported = readResult(o.result);
    let error = reported === 'unreadable' || reported === 'ok' ? undefined : reported;
    if (error?.name === 'MemoryError' && error.value === '') {
      error.value = `The run exceeded its memory limit of ${this.settings.pythonMemoryMb} MB.`;
    }
    // The cgroup's OOM killer stopped a process of the run: the run as a whole used too much.
    if (!error && outOfMemory) {
      error = { name: 'MemoryError', value: `The run exceeded its memory limit of ${this.settings.pythonMemoryMb} MB.`, traceback: o.stderr.slice(-20).join('\n') };
    }
    if (!error && o.flooded) return base; // stopped for flooding output: the capped logs are the answer
    if (!error && o.signal === 'SIGXCPU') error = timeoutError(timeoutMs);
    // No readable result means the run did not finish as the runner intended (killed, exited
    // early, or its result was cut): an error, never a success that would be charged.
    if (!error && (reported === 'unreadable' || o.exitCode !== 0 || o.signal)) {
      const how = o.signal ? `was killed by ${o.signal}` : `exited with status ${o.exitCode}`;
      const unreported = reported === 'unreadable' ? ' without reporting its result' : '';
      error = { name: 'ProcessExitError', value: `The Python process ${how}${unreported}.`, traceback: o.stderr.slice(-20).join('\n') };
    }
    return error ? { ...base, error: capError(error) } : base;
  }

  /** Stops the pre-started sandboxes and rejects queued runs. */
  async close(): Promise<void> {
    this.closed = true;
    this.pool.close();
    const warm = this.warm.splice(0);
    await Promise.all(
      warm.map(async (w) => {
        if (w.onExit) w.child.off('exit', w.onExit);
        await killSandbox(w.child, w.lease.uid);
        w.lease.release();
      }),
    );
    await removeRunRoot();
    this.cgroups.close();
    this.uids?.release();
    this.log.debug('python sandbox closed');
  }
}

/** The runner's fd 3 report: `{}` for success, the error object, or unreadable (missing, cut, not ours). */
function readResult(raw: string): ExecutionErrorInfo | 'ok' | 'unreadable' {
  try {
    const parsed = JSON.parse(raw) as Partial<Record<keyof ExecutionErrorInfo, unknown>> | null;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return 'unreadable';
    if (typeof parsed.name !== 'string') return Object.keys(parsed).length === 0 ? 'ok' : 'unreadable';
    return capError({ name: parsed.name, value: String(parsed.value ?? ''), traceback: stripAnsi(String(parsed.traceback ?? '')) });
  } catch {
    return 'unreadable';
  }
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '');
}
