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
import type { AppliedLimits, PythonSandbox, PythonSandboxStats, SandboxResult, SandboxRunRequest } from '../types.js';
import type { SandboxSettings } from '../settings.js';
import { UidPool, type UidLease } from '../confinement/uid-pool.js';
import { canSwitchUid, killSandbox, spawnOsSandbox } from '../confinement/os-sandbox.js';
import { SandboxCgroups, cgroupUnavailableWarning, cgroupWarning } from '../confinement/cgroup.js';
import { driveProcess, type ProcessOutcome } from '../confinement/process-run.js';
import { runnerArgv } from './runner.js';
import { inRunDir } from '../confinement/commands.js';
import { collectWorkFiles, snapshotWork } from '../confinement/work-files.js';
import { appliedLimits, MIN_PYTHON_MEMORY_MB } from '../limits.js';
import { pythonResult } from './result.js';
import { removeRunRoot } from '../confinement/run-dir.js';
import { moveRun, RunPriorities } from '../run-priority.js';

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
  /** Runs going per key: a key's further runs are scheduled lower (CODE_NICE, CODE_NICE_STEP). */
  private readonly priorities: RunPriorities;
  private closed = false;
  /** Counted where each happens (see {@link PythonSandboxStats}). */
  private readonly counts = { jobs: 0, crashes: 0 };

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
    this.priorities = new RunPriorities(settings.nice, settings.niceStep);
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
          if (!this.closed) this.counts.crashes++;
          this.warm.splice(i, 1);
          lease.release();
        }
      };
      child.once('exit', entry.onExit);
      this.warm.push(entry);
    }
  }

  /** The uid's memory cgroup, limited to one Python run's memory (`memoryMb`, the cap by default). */
  private cgroupFor(uid: number | null, memoryMb = this.settings.pythonMemoryMb): string | undefined {
    return this.cgroups.prepare(uid, memoryMb * 1024 * 1024, 'code', this.settings.maxProcesses);
  }

  /** A sandbox at nice `nice`: pre-started ones at CODE_NICE, until a run of a busy key moves them lower. */
  private spawn(uid: number | null, runDir: string | undefined, cgroup: string | undefined, nice = this.priorities.base): ChildProcess {
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
      nice,
    });
  }

  /**
   * Runs Python code; see {@link PythonSandbox.run}. A run with `commands` or `saveFiles` gets a
   * run directory of its own on the host (its work dir, read back for the files); any other takes
   * a pre-started sandbox.
   */
  async run(req: SandboxRunRequest): Promise<SandboxResult> {
    const s = this.settings;
    const limits = appliedLimits(req, { timeoutMs: s.timeoutMs, memoryMb: s.pythonMemoryMb, minMemoryMb: MIN_PYTHON_MEMORY_MB });
    const result = req.commands?.trim() || req.saveFiles ? await this.runInDir(req, limits) : await this.runWarm(req, limits);
    return { ...result, limits };
  }

  private async runWarm(req: SandboxRunRequest, limits: AppliedLimits): Promise<SandboxResult> {
    const warm = this.takeWarm();
    const lease = warm ? warm.lease : await this.pool.acquire(req.signal);
    // Counted from here, where the run holds its slot, to its end.
    const priority = this.priorities.start(req.owner);
    try {
      let entry: Warm;
      if (warm) {
        entry = warm;
        // Before the code is handed over: whatever it starts inherits the value.
        const child = warm.child;
        if (priority.nice !== this.priorities.base) moveRun(child.pid, priority.nice, true, () => child.exitCode === null && child.signalCode === null);
      } else {
        const cgroup = this.cgroupFor(lease.uid);
        entry = { lease, cgroup, child: this.spawn(lease.uid, undefined, cgroup, priority.nice) };
      }
      // Less memory than the cap: the uid's group is lowered for this run (each lease sets it again).
      if (limits.memoryMb < this.settings.pythonMemoryMb) entry.cgroup = this.cgroupFor(entry.lease.uid, limits.memoryMb);
      const ooms = this.cgroups.oomKills(entry.cgroup);
      const outcome = await this.drive(entry, req.code, limits, req.signal);
      return pythonResult(outcome, limits, this.cgroups.oomKills(entry.cgroup) > ooms);
    } finally {
      priority.end();
      lease.release();
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

  private async drive(entry: Warm, code: string, limits: AppliedLimits, signal?: AbortSignal): Promise<ProcessOutcome> {
    const outcome = await driveProcess(entry.child, {
      uid: entry.lease.uid,
      // runner.py reads the run's address-space limit from the first line, then the code.
      stdin: `${limits.memoryMb * 1024 * 1024}\n${code}`,
      timeoutMs: limits.timeoutMs,
      maxLines: this.settings.maxOutputLines,
      maxBytes: this.settings.maxOutputBytes,
      signal,
    });
    this.counts.jobs++;
    return outcome;
  }

  /** A run in a run directory of its own: after `commands` if any, and with its files read back when asked. */
  private runInDir(req: SandboxRunRequest, limits: AppliedLimits): Promise<SandboxResult> {
    return inRunDir(
      req,
      { pool: this.pool, cgroups: this.cgroups, settings: this.settings, priorities: this.priorities },
      (error): SandboxResult => ({ stdout: [], stderr: [], truncated: false, error, durationMs: 0 }),
      async ({ lease, opts }) => {
        // Nothing the commands left running may share the code's run.
        await killSandbox(undefined, lease.uid);
        // What the commands installed is not the code's output: only files new or changed after count.
        const before = req.saveFiles && req.commands?.trim() ? await snapshotWork(opts.runDir) : undefined;
        const cgroup = this.cgroupFor(lease.uid, limits.memoryMb);
        const ooms = this.cgroups.oomKills(cgroup);
        const outcome = await this.drive({ lease, cgroup, child: this.spawn(lease.uid, opts.runDir, cgroup, opts.nice) }, req.code, limits, req.signal);
        const result = pythonResult(outcome, limits, this.cgroups.oomKills(cgroup) > ooms);
        if (!req.saveFiles || result.error) return result;
        // Every process of the run is gone before its files are read: nothing changes under the walk.
        await killSandbox(undefined, lease.uid);
        const { files, omitted } = await collectWorkFiles(opts.runDir, before, { maxFiles: req.saveFiles.maxFiles, maxBytes: this.settings.tmpfsMb * 1024 * 1024 });
        return { ...result, files, ...(omitted > 0 ? { filesOmitted: omitted } : {}) };
      },
    );
  }

  /** Counters since start (metrics, tests). */
  stats(): PythonSandboxStats {
    const prestarted = this.warm.length;
    // Every pre-started sandbox holds a slot as well; the other leased slots are runs.
    return { queued: this.pool.waitingCount, active: Math.max(0, this.pool.leased - prestarted), prestarted, slots: this.pool.size, ...this.counts };
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
