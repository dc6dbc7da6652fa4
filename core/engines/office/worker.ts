/**
 * One warm LibreOffice listener and its UNO driver (design: "Office supervisor"). Each worker has
 * its own profile directory and its own process group, so stopping it leaves nothing behind.
 * The worker only runs jobs and reports deaths; the pool decides about restarts and queueing.
 * It runs confined (jail.ts): it sees its profile and, at `/job`, its job directory, into which
 * each job's input is moved when the job starts and from which the PDF is read back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { PluginLogger } from '../../plugin/types.js';
import { claimProfile, killStale, releaseProfile } from './profiles.js';
import { waitForGroupExit } from '../processes.js';
import { workerCommand, writeIdentity } from './jail.js';
import { clearDir, ownDir, placeInput, readOutput } from './job-dir.js';
import { exited, killGroup } from './process-group.js';
import { JobFailure, type FailureKind, type JobDone, type WorkerJob } from './job.js';
import { withMemoryCap } from './memory.js';
import { atLowPriority, renice, type SetNice } from '../tools/priority.js';
import type { SandboxCgroups } from '../sandbox/confinement/cgroup.js';
import { runsAt } from '../sandbox/run-priority.js';

export { JobFailure } from './job.js';

/** Settings shared by every worker of a pool. */
export interface WorkerConfig {
  binary: string;
  python: string;
  driverPath: string;
  profileRoot: string;
  startTimeoutMs: number;
  /** Workers in the pool (profile slots are claimed in steps of this). */
  poolSize: number;
  /** Identifies the pool in profile owner files. */
  token: string;
  /** bubblewrap binary that confines each worker (see jail.ts); unset runs them unconfined. */
  bwrap?: string | null;
  /** First uid of the pool's host-wide block: worker i runs as `uidBase + i`; unset keeps the service's uid. */
  uidBase?: number | null;
  /** The service's environment: only its locale and time zone reach a worker (see `officeEnv`). */
  env?: Record<string, string | undefined>;
  /** Memory of one worker (its process tree), in bytes (memory.ts). */
  memoryBytes?: number;
  /** Memory cgroups, when they can be made here; otherwise each process gets an address-space limit. */
  cgroups?: SandboxCgroups;
  /** Nice value of the worker's whole tree (OFFICE_NICE, 0 to 19; 0 or unset: the service's). */
  nice?: number;
  /** How one thread's nice is set (default node:os `setPriority`); tests refuse raises like a kernel without CAP_SYS_NICE. */
  setThreadNice?: SetNice;
  log: PluginLogger;
}

let generation = 0;

/** Thrown by `start()` when `stop()` interrupted it: a shutdown, not a failure. */
export class WorkerStopped extends Error {
  constructor(index: number) {
    super(`LibreOffice worker ${index} was stopped while starting`);
  }
}

/** One LibreOffice listener behind its driver; `onDeath` fires when it crashes (`crashed`) or was killed after a hang. */
export class OfficeWorker {
  state: 'starting' | 'idle' | 'busy' | 'stopped' = 'stopped';
  conversions = 0;
  restarts = 0;
  /** Why it was restarted: its conversion limit (routine), killed after a hang, or died on its own. */
  recycles = 0;
  kills = 0;
  crashes = 0;
  /** When the current process started (to back off from crash loops). */
  startedAt = 0;
  /** Deaths in a row shortly after starting. */
  quickDeaths = 0;
  private driver: ChildProcess | null = null;
  private officePid: number | null = null;
  private stopping = false;
  private nextId = 1;
  private pending: { id: number; resolve: (v: JobDone) => void; reject: (e: JobFailure) => void } | null = null;
  private ready: ((ok: boolean, error?: string) => void) | null = null;
  private stderrTail = '';
  /** The memory cgroup of the running process, and the OOM kills it had seen when it started. */
  private group: string | undefined;
  private oomSeen = 0;
  /** The driver said LibreOffice died for want of memory (an allocation refused under `prlimit --as`). */
  private diedOfMemory = false;
  /** The nice value the running process tree was last set to (at start: OFFICE_NICE). */
  private niceNow = 0;

  constructor(readonly index: number, private readonly cfg: WorkerConfig, private readonly onDeath: (w: OfficeWorker, crashed: boolean) => void) {}

  /** The nice value the tree was started at or last moved to. */
  get nice(): number {
    return this.niceNow;
  }

  /**
   * Schedules the whole tree at `nice` for the job it is about to run (the pool lowers a key's
   * further concurrent jobs: priority.ts `fairNice`). False when a thread refused (a raise
   * without CAP_SYS_NICE): the tree then runs lower than `nice`, and the pool recycles it rather
   * than give it the job.
   */
  setNice(nice: number): boolean {
    const driver = this.driver;
    if (!driver?.pid) return true;
    // Checked, not only remembered: a group write refused for the kernel's rate limit (its one
    // retry dropped once the next job moved the worker) may have left the tree elsewhere.
    if (nice === this.niceNow && runsAt(driver.pid, nice, true)) return true;
    this.niceNow = nice;
    return renice(driver.pid, nice, () => this.driver === driver && this.niceNow === nice, this.cfg.setThreadNice);
  }

  /** Pid of the soffice launcher this worker's driver started (null before it is up). */
  get sofficePid(): number | null {
    return this.officePid;
  }

  private profile: string | null = null;

  /** The profile directory of this worker (a separate LibreOffice user installation), claimed on first start. */
  get profileDir(): string {
    this.profile ??= claimProfile(this.cfg.profileRoot, this.index, this.cfg.poolSize, this.cfg.token);
    return this.profile;
  }

  /** The claimed profile directory, or null before the first start. */
  get claimedProfile(): string | null {
    return this.profile;
  }

  /** The job directory of this worker (beside its profile): the only place its jail sees a job in. */
  get jobDir(): string {
    return `${this.profileDir}.job`;
  }

  /** The uid the current process runs as (null: the service's own) and the job dir as the driver sees it. */
  private launched: { uid: number | null; jobPath: string } = { uid: null, jobPath: '' };

  /** Gives the profile slot back once the worker is stopped for good; no document stays on disk. */
  release(): void {
    if (this.profile) {
      clearDir(this.jobDir);
      releaseProfile(this.profile);
    }
    this.profile = null;
  }

  /** Spawns the driver (which starts its soffice) and waits until it is connected. */
  async start(): Promise<void> {
    this.stopping = false;
    this.state = 'starting';
    this.stderrTail = '';
    this.diedOfMemory = false;
    this.officePid = null;
    this.startedAt = Date.now();
    // Anything still running on our own profile is a leftover of this worker's previous process.
    killStale(this.profileDir);
    const pipe = `ciapi_office_${process.pid}_${this.index}_${++generation}`;
    const uid = this.cfg.uidBase == null ? null : this.cfg.uidBase + this.index;
    const launch = workerCommand({
      bwrap: this.cfg.bwrap ?? null,
      python: this.cfg.python,
      driverPath: this.cfg.driverPath,
      binary: this.cfg.binary,
      profileDir: this.profileDir,
      jobDir: this.jobDir,
      uid,
      identityDir: `${this.profileDir}.etc`,
      driverArgs: [this.cfg.binary, this.profileDir, pipe, String(Math.ceil(this.cfg.startTimeoutMs / 1000))],
      serviceEnv: this.cfg.env ?? {},
    });
    try {
      // The worker's uid owns exactly its profile and its job dir (a profile from an earlier run
      // under another uid block is re-owned); a job left by a killed process is removed.
      ownDir(this.profileDir, launch.uid);
      if (launch.uid !== null) writeIdentity(`${this.profileDir}.etc`, launch.uid, this.profileDir);
      ownDir(this.jobDir, launch.uid);
      clearDir(this.jobDir);
    } catch (err) {
      this.state = 'stopped';
      throw new Error(`LibreOffice worker ${this.index} failed to start: its directories are unusable (${(err as Error).message})`);
    }
    this.launched = { uid: launch.uid, jobPath: launch.jobPath };
    // detached: the launcher leads its own process group, which the driver, its soffice (and
    // oosplash's soffice.bin) join, so one group kill stops all of them.
    // Each worker has its own group (named by its uid, or its index when it keeps the service's).
    this.group = this.cfg.memoryBytes ? this.cfg.cgroups?.prepare(launch.uid ?? this.index, this.cfg.memoryBytes) : undefined;
    this.oomSeen = this.cfg.cgroups?.oomKills(this.group) ?? 0;
    const capped = this.cfg.memoryBytes ? withMemoryCap(launch.argv, this.group, this.cfg.memoryBytes) : launch.argv;
    // Below the service's priority, so a flood of conversions leaves a core to the serving thread.
    this.niceNow = this.cfg.nice ?? 0;
    const argv = atLowPriority(capped, this.niceNow);
    const [bin, ...args] = argv;
    const driver = spawn(bin!, args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: launch.env });
    this.driver = driver;
    driver.stderr?.on('data', (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString()).slice(-2000);
    });
    driver.stdin?.on('error', () => {});
    createInterface({ input: driver.stdout! }).on('line', (line) => this.onLine(line));
    driver.once('exit', (code, sig) => this.died(driver, `the LibreOffice driver exited (${sig ?? code})`));
    driver.once('error', (err) => this.died(driver, `the LibreOffice driver could not start: ${err.message}`));

    const ok = await new Promise<{ ok: boolean; error?: string }>((resolve) => {
      // Unref'd and always cleared: `stop()` during warm-up settles this wait at once.
      const timer = setTimeout(() => this.ready?.(false, 'start timed out'), this.cfg.startTimeoutMs + 2000);
      timer.unref();
      this.ready = (ok, error) => {
        clearTimeout(timer);
        this.ready = null;
        resolve({ ok, error });
      };
    });
    if (this.stopping) throw new WorkerStopped(this.index);
    if (!ok.ok) {
      await this.stop();
      throw new Error(`LibreOffice worker ${this.index} failed to start: ${ok.error ?? 'unknown'} ${this.stderrTail.trim()}`.trim());
    }
    this.state = 'idle';
  }

  private onLine(line: string): void {
    let msg: { ready?: boolean; dead?: boolean; memory?: boolean; pid?: number; error?: string; id?: number; ok?: boolean; kind?: FailureKind; reason?: string; pages?: number | null; type?: string | null };
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.ready !== undefined) {
      if (typeof msg.pid === 'number') this.officePid = msg.pid;
      this.ready?.(msg.ready, msg.error);
      return;
    }
    if (msg.dead) {
      // The driver exits right after; `died` handles it on the exit event.
      this.stderrTail = (this.stderrTail + (msg.error ?? '')).slice(-2000);
      this.diedOfMemory = msg.memory === true;
      return;
    }
    const p = this.pending;
    if (!p || msg.id !== p.id) return;
    this.pending = null;
    if (msg.ok) void this.collect(p, typeof msg.pages === 'number' ? msg.pages : null, msg.type ?? null);
    else if (msg.kind === 'memory') p.reject(this.cfg.memoryBytes ? this.overMemory() : new JobFailure('dead', `LibreOffice ran out of memory (${msg.error ?? 'no cap set'})`));
    else p.reject(new JobFailure(msg.kind ?? 'export', msg.error ?? 'unknown error', msg.reason ?? undefined));
  }

  /** The failure of a conversion that needed more than the worker's memory cap (its message: the cap). */
  private overMemory(): JobFailure {
    return new JobFailure('memory', `${Math.round((this.cfg.memoryBytes ?? 0) / 1024 / 1024)} MB`);
  }

  /** Takes the PDF out of the job dir and empties it; the worker stays busy until then. */
  private async collect(p: NonNullable<OfficeWorker['pending']>, pages: number | null, type: string | null): Promise<void> {
    const pdf = await readOutput(join(this.jobDir, 'output.pdf'), this.launched.uid).catch(() => undefined);
    clearDir(this.jobDir);
    p.resolve({ pages, type, pdf });
  }

  private died(child: ChildProcess, why: string): void {
    if (child !== this.driver) return;
    if (this.stopping) {
      this.ready?.(false, 'stopped');
      return;
    }
    this.cfg.log.warn({ worker: this.index, why, stderr: this.stderrTail.trim() || undefined }, 'LibreOffice worker died');
    this.ready?.(false, why);
    const p = this.pending;
    this.pending = null;
    // Killed by the kernel for going over the worker's memory cgroup, or aborted on an allocation
    // its address-space limit refused: either way the document asked for too much.
    const oom = this.cfg.cgroups?.oomKills(this.group) ?? 0;
    const overMemory = oom > this.oomSeen || (this.diedOfMemory && !!this.cfg.memoryBytes);
    this.oomSeen = oom;
    if (overMemory) p?.reject(this.overMemory());
    else p?.reject(new JobFailure('dead', `LibreOffice stopped unexpectedly (${why})`));
    const wasStarting = this.state === 'starting';
    this.state = 'stopped';
    // Make sure nothing of the group survives; the pool then starts a fresh worker.
    void this.stop().then(() => {
      if (!wasStarting) this.onDeath(this, true);
    });
  }

  /**
   * Runs one job: its staged input moves into this worker's job dir (the one its jail sees), the
   * PDF comes back in the result. A hang past `timeoutMs` kills the worker and fails with
   * `timeout`; an abort of `signal` kills it at once and fails with `aborted` (LibreOffice has no
   * way to stop one conversion, and one left running would keep its memory and CPU).
   */
  run(job: WorkerJob, timeoutMs: number, signal?: AbortSignal): Promise<JobDone> {
    if (this.state !== 'idle' || !this.driver?.stdin) return Promise.reject(new JobFailure('dead', 'worker not ready'));
    if (signal?.aborted) return Promise.reject(new JobFailure('aborted', 'the caller stopped waiting'));
    const name = basename(job.input);
    try {
      placeInput(job.input, this.jobDir, name);
    } catch (err) {
      return Promise.reject(new JobFailure('internal', `the input could not be handed to the worker: ${(err as Error).message}`));
    }
    this.state = 'busy';
    const id = this.nextId++;
    const { jobPath } = this.launched;
    return new Promise<JobDone>((resolve, reject) => {
      /** Ends the job with `failure` and replaces this worker: nothing of the conversion survives. */
      const kill = (failure: JobFailure, why: string) => {
        if (this.pending?.id !== id) return;
        this.pending = null;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(failure);
        this.cfg.log.warn({ worker: this.index }, why);
        this.state = 'stopped';
        void this.stop(0).then(() => this.onDeath(this, false));
      };
      const timer = setTimeout(
        () => kill(new JobFailure('timeout', `conversion timed out after ${Math.round(timeoutMs / 1000)} s`), 'LibreOffice conversion hung; restarting the worker'),
        timeoutMs,
      );
      const onAbort = () => kill(new JobFailure('aborted', 'the caller stopped waiting'), 'LibreOffice conversion abandoned by its caller; restarting the worker');
      signal?.addEventListener('abort', onAbort, { once: true });
      const settled = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      this.pending = {
        id,
        resolve: (v) => {
          settled();
          this.conversions++;
          this.state = 'idle';
          resolve(v);
        },
        reject: (e) => {
          settled();
          clearDir(this.jobDir);
          if (e.kind !== 'dead' && e.kind !== 'memory') {
            this.conversions++;
            this.state = 'idle';
          }
          reject(e);
        },
      };
      const paths = { input: join(jobPath, name), output: join(jobPath, 'output.pdf') };
      this.driver!.stdin!.write(JSON.stringify({ id, ...job, ...paths }) + '\n');
    });
  }

  /** Stops both processes: SIGTERM, then SIGKILL after a grace period. */
  async stop(graceMs = 3000): Promise<void> {
    const warmingUp = this.state === 'starting';
    this.stopping = true;
    // A start in progress gives up now (its wait would otherwise outlive the pool).
    this.ready?.(false, 'stopped');
    const driver = this.driver;
    const pgid = driver?.pid;
    // Closing stdin asks the driver to stop LibreOffice and exit; SIGKILL the group if it lingers.
    // A driver still connecting reads no stdin, and has no document to save: kill it at once.
    driver?.stdin?.end();
    if (warmingUp) killGroup(driver, 'SIGKILL');
    const timer = setTimeout(() => killGroup(driver, 'SIGKILL'), graceMs);
    await exited(driver);
    clearTimeout(timer);
    // The driver is gone; make sure its group (soffice, soffice.bin) is too.
    if (pgid) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        /* group already empty */
      }
      // Inside the jail LibreOffice dies with its pid namespace; wait until it is really gone.
      if (!(await waitForGroupExit(pgid))) this.cfg.log.warn({ worker: this.index, pgid }, 'LibreOffice processes outlived a SIGKILL');
    }
    this.state = 'stopped';
  }

  /** Synchronous last-resort kill, for `process.on('exit')`. */
  killNow(): void {
    this.stopping = true;
    const pgid = this.driver?.pid;
    if (!pgid) return;
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
