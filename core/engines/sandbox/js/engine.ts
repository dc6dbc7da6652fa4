/**
 * The JavaScript sandbox pool (spec §4.8, issue 6). Runs go to forked worker processes that hold
 * isolated-vm isolates; one job per worker at a time, a bounded queue in front (429 when full),
 * the wall clock enforced from here as a backstop (isolated-vm's timeout misses awaited
 * promises), and any worker that crashes or overruns is killed and replaced, so a V8 abort costs
 * one worker, never the service. Workers run inside bubblewrap (worker-process.ts) with an
 * empty environment, no network and, when the service is root, an unprivileged uid of their own:
 * even an isolate escape finds no secrets. A worker is replaced by a fresh process after
 * `SANDBOX_JS_RECYCLE_AFTER` runs. The pool answers the workers' fetches itself and counts them
 * (in flight, bytes per run, fetch-bridge.ts), where the code cannot reach, and cuts every result
 * to the caps. Workers go to runs fairly between API keys (fair-queue.ts); when a key waits below
 * its fair share while another holds more, a surge worker starts for it, up to
 * `SANDBOX_JS_WORKERS` more, and leaves again once nobody waits (issue 18, item 9).
 */
import { withOwnUids, type UidBlock } from '../confinement/uid-block.js';
import type { PluginLogger } from '../../../plugin/types.js';
import type { AppliedLimits, JsRunRequest, JsSandbox, JsSandboxStats, SandboxResult } from '../types.js';
import type { FromWorker, RunMessage, ToWorker } from './protocol.js';
import { FairQueue } from '../../../util/fair-queue.js';
import { serveFetch } from './fetch-bridge.js';
import { startPoolWorker, type Job, type Worker } from './pool-worker.js';
import { appliedLimits, MIN_JS_MEMORY_MB } from '../limits.js';
import type { SandboxSettings } from '../settings.js';
import { BusyError } from '../../../errors.js';
import { BUSY_MESSAGE, UidPool } from '../confinement/uid-pool.js';
import { canSwitchUid, killSandbox } from '../confinement/os-sandbox.js';
import { SandboxCgroups, cgroupUnavailableWarning, cgroupWarning } from '../confinement/cgroup.js';
import { removeRunRoot } from '../confinement/run-dir.js';
import { installAndBundle } from './packages.js';
import { capResult } from '../output.js';
import { crashError, startFailure } from './errors.js';
import { prepareWorkerFiles, signalOf, type WorkerFiles } from './worker-process.js';
import { moveRun, RunPriorities, runsAt } from '../run-priority.js';

/** Grace after the in-worker limit before the pool kills the worker itself. */
const BACKSTOP_MS = 800;

/** JavaScript sandbox engine. */
export class JsSandboxEngine implements JsSandbox {
  readonly kind = 'js' as const;
  private readonly workers: Worker[] = [];
  private readonly queue = new FairQueue<Job>();
  /** Uid indexes of surge workers, held until their uid has been swept. */
  private readonly surgeIndexes = new Set<number>();
  private readonly commandsPool: UidPool;
  /** Cgroups of the worker processes and of the `commands` and bundling steps. */
  private readonly cgroups: SandboxCgroups;
  /** Runs going per key: a key's further runs are scheduled lower (CODE_NICE, CODE_NICE_STEP). */
  private readonly priorities: RunPriorities;
  private nextId = 1;
  private closed = false;
  private failures = 0;
  private files?: WorkerFiles;
  private starting?: Promise<void>;
  private startFailed = false;
  /** Counted where each happens (see {@link JsSandboxStats}). */
  private readonly counts = { jobs: 0, recycles: 0, kills: 0, crashes: 0 };

  private readonly settings: SandboxSettings;
  /** This engine's uids, apart from every other engine's on the host. */
  private readonly uids: UidBlock | undefined;

  constructor(
    settings: SandboxSettings,
    private readonly log: PluginLogger,
    /** Moves a worker to a run's nice value; false when refused (a parameter so tests can refuse like a service without CAP_SYS_NICE). */
    private readonly move: typeof moveRun = moveRun,
  ) {
    ({ settings: this.settings, block: this.uids } = withOwnUids(settings, canSwitchUid()));
    settings = this.settings;
    // JS `commands` steps get their own uid range, apart from the Python sandboxes'.
    this.commandsPool = new UidPool(settings.maxConcurrent, canSwitchUid() ? settings.uidBase + 1000 : null, settings.maxQueue);
    this.cgroups = new SandboxCgroups(canSwitchUid(), cgroupWarning(log), cgroupUnavailableWarning(log, 'JavaScript workers and commands'));
    this.priorities = new RunPriorities(settings.nice, settings.niceStep);
  }

  /** Bundles the worker module, checks bubblewrap, then starts the worker processes. */
  start(): void {
    const uid0 = canSwitchUid() ? this.settings.uidBase + 2000 : null;
    this.starting = prepareWorkerFiles(this.settings, uid0, (obj, msg) => this.log.warn(obj, msg)).then(
      (files) => {
        this.files = files;
        if (this.closed) return;
        for (let i = 0; i < this.settings.jsWorkers; i++) this.workers.push(this.spawnWorker(i, false));
      },
      (err: unknown) => {
        this.log.error({ err }, 'JavaScript sandbox workers could not be prepared');
        this.startFailed = true;
        for (const job of this.queue.drain()) job.resolve(startFailure());
      },
    );
  }

  private spawnWorker(index: number, surge: boolean): Worker {
    return startPoolWorker({ settings: this.settings, files: this.files!, cgroups: this.cgroups, index, surge }, {
      message: (w, m) => this.onMessage(w, m),
      exit: (w, code, signal) => this.onExit(w, code, signal),
      error: (err) => this.log.warn({ err }, 'js sandbox worker error'),
    });
  }

  private onMessage(w: Worker, m: FromWorker): void {
    if (m.t === 'ready') {
      w.ready = true;
      w.started = true;
      this.failures = 0;
      this.dispatch();
    } else if (m.t === 'done') {
      const job = w.job;
      if (!job || job.msg.id !== m.id) return;
      this.finishJob(w, m.result);
      this.dispatch();
    } else if (m.t === 'fetch') {
      const job = w.job;
      if (!job || job.msg.id !== m.id) return;
      void this.serveFetch(w, job, m.fid, m.req);
    }
  }

  private async serveFetch(w: Worker, job: Job, fid: number, raw: string): Promise<void> {
    const res = await serveFetch(job, fid, raw);
    if (w.job === job && w.child.connected) w.child.send({ t: 'fetch-result', id: job.msg.id, fid, res } satisfies ToWorker);
  }

  private finishJob(w: Worker, result: SandboxResult): void {
    const job = w.job;
    if (!job) return;
    w.job = undefined;
    w.runStderr = '';
    clearTimeout(w.backstop);
    job.priority?.end();
    this.queue.done(job.owner);
    this.counts.jobs++;
    for (const ac of job.fetches.values()) ac.abort();
    // The worker cut the result already; cut again, since a worker is where an escape would land.
    job.resolve(capResult(result, { maxLines: job.msg.maxLines, maxBytes: job.msg.maxBytes }));
    // A worker left below its run's priority (a raise refused without CAP_SYS_NICE) is retired
    // too: kept, it would serve every later run, another key's lone one included, at a flood's value.
    if ((++w.runs >= this.settings.jsRecycleAfter || w.raiseRefused) && !this.closed && !w.killedOnPurpose) {
      this.counts.recycles++;
      this.kill(w);
    }
  }

  private onExit(w: Worker, code: number | null, exitSignal: NodeJS.Signals | null): void {
    // Never given another run, even before its successor replaces it in the list.
    w.ready = false;
    const i = this.workers.indexOf(w);
    // Under bubblewrap a signal that killed node arrives as the launcher's exit status 128 + n.
    const signal = exitSignal ?? signalOf(code);
    if (w.job) {
      const oom = this.cgroups.oomKills(w.cgroup) > w.oomsAtStart;
      const error = crashError({ timedOut: !!w.backstopFired, oom, stderr: w.runStderr, signal, code, msg: w.job.msg });
      this.finishJob(w, { stdout: [], stderr: [], truncated: false, error, durationMs: 0 });
    }
    if (i < 0 || this.closed) return;
    if (!w.killedOnPurpose) this.counts.crashes++;
    if (w.surge) return this.dropSurge(w);
    if (!w.started) this.failures++;
    if (!w.killedOnPurpose) this.log.warn({ code, signal, stderr: w.stderrTail.slice(-500) }, 'js sandbox worker exited; replacing it');
    // A worker that cannot even start (broken install) must not respawn in a tight loop.
    const delay = this.failures > 3 ? 2000 : 0;
    // The successor gets the same uid: the sweep of the old worker's uid must be over first, or
    // it would kill the successor too.
    const swept = (w.killing ??= killSandbox(undefined, w.uid));
    const replace = () => {
      void swept.then(() => {
        if (this.closed) return;
        const idx = this.workers.indexOf(w);
        if (idx >= 0) this.workers[idx] = this.spawnWorker(w.index, false);
      });
    };
    if (delay) setTimeout(replace, delay).unref();
    else replace();
  }

  private dispatch(): void {
    for (const w of this.workers) {
      if (this.queue.length === 0) break;
      if (!w.ready || w.job || !w.child.connected) continue;
      const job = this.queue.take()!;
      w.job = job;
      w.runStderr = '';
      this.prioritise(w, job);
      w.oomsAtStart = this.cgroups.oomKills(w.cgroup);
      w.backstop = setTimeout(() => {
        w.backstopFired = true;
        this.killForRun(w);
      }, job.msg.timeoutMs + BACKSTOP_MS);
      w.child.send(job.msg satisfies ToWorker, (err) => {
        // The channel broke (the worker is dying): no exit of its will answer this run any more.
        if (err && w.job === job) {
          this.finishJob(w, { stdout: [], stderr: [], truncated: false, durationMs: 0, error: { name: 'SandboxCrashError', value: 'The sandbox stopped unexpectedly before the run started.', traceback: '' } });
          this.killForRun(w);
        }
      });
    }
    this.balance();
  }

  /**
   * Counts the run for its owner and moves its worker to the nice value that gives, before the
   * run is sent: a pooled worker served whichever key came before. A service without
   * CAP_SYS_NICE cannot raise a worker lowered for a flood back: its threads keep the lower value
   * for this run (its session group, what autogroup weighs, still moves) and the worker is
   * replaced once the run ends, so at most one run per lowered worker goes below its share.
   */
  private prioritise(w: Worker, job: Job): void {
    job.priority = this.priorities.start(job.owner);
    const nice = job.priority.nice;
    // Checked, not only remembered: a group write refused for the run before may have left it elsewhere.
    if (nice === w.nice && runsAt(w.child.pid, nice, w.ownSession)) return;
    if (!this.move(w.child.pid, nice, w.ownSession, () => w.job === job)) w.raiseRefused = true;
    w.nice = nice;
  }

  /**
   * Starts a surge worker for each owner waiting below its fair share while another owner holds
   * more than its own (at most `jsWorkers` surge workers), and stops idle surge workers once
   * nobody waits: a key's sleeping runs no longer make every other key wait for them.
   */
  private balance(): void {
    const s = this.settings;
    if (this.closed || !this.files) return;
    if (this.queue.length === 0) {
      for (const w of this.workers) if (w.surge && w.ready && !w.job) this.kill(w);
      return;
    }
    const starting = this.workers.filter((w) => w.surge && !w.started && !w.killedOnPurpose).length;
    for (let want = this.queue.starved(s.jsWorkers) - starting; want > 0 && this.surgeIndexes.size < s.jsWorkers; want--) {
      let index = s.jsWorkers;
      while (this.surgeIndexes.has(index)) index++;
      this.surgeIndexes.add(index);
      this.workers.push(this.spawnWorker(index, true));
    }
  }

  /** Forgets a surge worker that exited; its uid index is free again once its uid is swept. */
  private dropSurge(w: Worker): void {
    if (!w.killedOnPurpose) this.log.warn({ stderr: w.stderrTail.slice(-500) }, 'js sandbox surge worker exited');
    this.workers.splice(this.workers.indexOf(w), 1);
    void (w.killing ??= killSandbox(undefined, w.uid)).then(() => {
      this.surgeIndexes.delete(w.index);
      this.dispatch();
    });
  }

  /** Kills a worker because of its run (overran its time, aborted, channel lost): counted as a kill. */
  private killForRun(w: Worker): void {
    if (!w.killedOnPurpose && !this.closed) this.counts.kills++;
    this.kill(w);
  }

  private kill(w: Worker): void {
    w.killedOnPurpose = true;
    w.ready = false;
    // The launcher's process group and, with a uid of its own, every process of that uid.
    w.killing ??= killSandbox(w.child, w.uid);
  }

  /**
   * Runs JavaScript; see {@link JsSandbox.run}. The code has no file system, so a run with
   * `saveFiles` always has none to hand back.
   */
  async run(req: JsRunRequest): Promise<SandboxResult> {
    const s = this.settings;
    const limits = appliedLimits(req, { timeoutMs: s.timeoutMs, memoryMb: s.jsMemoryMb, minMemoryMb: MIN_JS_MEMORY_MB });
    const result = await this.runJob(req, limits);
    return { ...result, limits, ...(req.saveFiles ? { files: [] } : {}) };
  }

  private async runJob(req: JsRunRequest, limits: AppliedLimits): Promise<SandboxResult> {
    if (this.closed) throw new BusyError(BUSY_MESSAGE);
    let bundle: string | undefined;
    if (req.commands?.trim()) {
      const prepared = await installAndBundle(req, { pool: this.commandsPool, cgroups: this.cgroups, settings: this.settings, priorities: this.priorities });
      if ('error' in prepared) return { stdout: [], stderr: [], truncated: false, error: prepared.error, durationMs: 0 };
      bundle = prepared.bundle;
    }
    if (this.startFailed) return startFailure();
    if (this.queue.length >= this.settings.maxQueue) throw new BusyError(BUSY_MESSAGE);
    const s = this.settings;
    const msg: RunMessage = {
      t: 'run',
      id: this.nextId++,
      code: req.code,
      bundle,
      timeoutMs: limits.timeoutMs,
      memoryMb: limits.memoryMb,
      maxLines: s.maxOutputLines,
      maxBytes: s.maxOutputBytes,
    };
    return new Promise<SandboxResult>((resolve) => {
      const job: Job = { msg, req, owner: req.owner ?? '', resolve, fetches: new Map(), fetchedBytes: 0 };
      const onAbort = () => {
        this.queue.remove(job);
        job.priority?.end();
        const w = this.workers.find((x) => x.job === job);
        if (w) this.killForRun(w);
        resolve({ stdout: [], stderr: [], truncated: false, error: { name: 'AbortError', value: 'The run was stopped.', traceback: '' }, durationMs: 0 });
      };
      if (req.signal?.aborted) return onAbort();
      req.signal?.addEventListener('abort', onAbort, { once: true });
      job.resolve = (r) => {
        req.signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Counters since start (metrics, tests). */
  stats(): JsSandboxStats {
    return {
      queued: this.queue.length + this.commandsPool.waitingCount,
      active: this.workers.filter((w) => w.job).length,
      workers: this.workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null).length,
      ...this.counts,
    };
  }

  /** Stops every worker and answers queued runs with 429. */
  async close(): Promise<void> {
    this.closed = true;
    this.commandsPool.close();
    for (const job of this.queue.drain()) {
      job.resolve({ stdout: [], stderr: [], truncated: false, error: { name: 'AbortError', value: 'The service is shutting down.', traceback: '' }, durationMs: 0 });
    }
    await Promise.all(
      this.workers.splice(0).map(async (w) => {
        await new Promise<void>((resolve) => {
          if (w.child.exitCode !== null || w.child.signalCode !== null) return resolve();
          w.child.once('exit', () => resolve());
          this.kill(w);
        });
        await w.killing;
      }),
    );
    await this.starting;
    await this.files?.bundle?.remove();
    await removeRunRoot();
    this.cgroups.close();
    this.uids?.release();
  }
}
