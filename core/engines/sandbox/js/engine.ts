/**
 * The JavaScript sandbox pool (spec §4.8, issue 6). Runs go to forked worker processes that hold
 * isolated-vm isolates; one job per worker at a time, a bounded queue in front (429 when full),
 * the wall clock enforced from here as a backstop (isolated-vm's timeout misses awaited
 * promises), and any worker that crashes or overruns is killed and replaced, so a V8 abort costs
 * one worker, never the service. Workers run inside bubblewrap (worker-process.ts) with an
 * empty environment, no network and, when the service is root, an unprivileged uid of their own:
 * even an isolate escape finds no secrets. A worker is replaced by a fresh process after
 * `SANDBOX_JS_RECYCLE_AFTER` runs. The pool answers the workers' fetches itself and counts them
 * (in flight, bytes per run) here, where the code cannot reach, and cuts every result to the caps.
 */
import { withOwnUids, type UidBlock } from '../confinement/uid-block.js';
import type { ChildProcess } from 'node:child_process';
import type { PluginLogger } from '../../../plugin/types.js';
import type { JsRunRequest, JsSandbox, SandboxFetchRequest, SandboxResult } from '../types.js';
import { MAX_FETCHES, parseFetch, type FromWorker, type RunMessage, type ToWorker } from './protocol.js';
import type { SandboxSettings } from '../settings.js';
import { BusyError } from '../../../errors.js';
import { BUSY_MESSAGE, UidPool } from '../confinement/uid-pool.js';
import { canSwitchUid, killSandbox } from '../confinement/os-sandbox.js';
import { SandboxCgroups, cgroupUnavailableWarning, cgroupWarning } from '../confinement/cgroup.js';
import { removeRunRoot } from '../confinement/run-dir.js';
import { installAndBundle } from './packages.js';
import { capResult, timeoutError } from '../output.js';
import { launchWorker, prepareWorkerFiles, signalOf, workerMemoryBytes, type WorkerFiles } from './worker-process.js';

interface Job {
  msg: RunMessage;
  req: JsRunRequest;
  resolve(r: SandboxResult): void;
  fetches: Map<number, AbortController>;
  /** Response bytes fetched so far in this run. */
  fetchedBytes: number;
}

interface Worker {
  child: ChildProcess;
  uid: number | null;
  cgroup?: string;
  ready: boolean;
  /** Said ready once: a worker killed later (recycled, overran) is no start failure. */
  started: boolean;
  /** Runs served; at `jsRecycleAfter` the worker is replaced. */
  runs: number;
  job?: Job;
  backstop?: NodeJS.Timeout;
  backstopFired?: boolean;
  killedOnPurpose?: boolean;
  stderrTail: string;
  /** Stderr since the current run started: what a crash of this run is judged by. */
  runStderr: string;
  /** The cgroup's OOM kill count when the current run started. */
  oomsAtStart: number;
  /** Killing the worker and sweeping its uid; a successor starts once this is done. */
  killing?: Promise<void>;
}

/** Grace after the in-worker limit before the pool kills the worker itself. */
const BACKSTOP_MS = 800;
/** The sandboxed fetch's limits (issue 6: "size/time limits"): one response, and all of a run's. */
const FETCH_MAX_BYTES = 10 * 1024 * 1024;
const FETCH_RUN_MAX_BYTES = 32 * 1024 * 1024;

/** JavaScript sandbox engine. */
export class JsSandboxEngine implements JsSandbox {
  readonly kind = 'js' as const;
  private readonly workers: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly commandsPool: UidPool;
  /** Cgroups of the worker processes and of the `commands` and bundling steps. */
  private readonly cgroups: SandboxCgroups;
  private nextId = 1;
  private closed = false;
  private failures = 0;
  private files?: WorkerFiles;
  private starting?: Promise<void>;
  private startFailed = false;

  private readonly settings: SandboxSettings;
  /** This engine's uids, apart from every other engine's on the host. */
  private readonly uids: UidBlock | undefined;

  constructor(
    settings: SandboxSettings,
    private readonly log: PluginLogger,
  ) {
    ({ settings: this.settings, block: this.uids } = withOwnUids(settings, canSwitchUid()));
    settings = this.settings;
    // JS `commands` steps get their own uid range, apart from the Python sandboxes'.
    this.commandsPool = new UidPool(settings.maxConcurrent, canSwitchUid() ? settings.uidBase + 1000 : null, settings.maxQueue);
    this.cgroups = new SandboxCgroups(canSwitchUid(), cgroupWarning(log), cgroupUnavailableWarning(log, 'JavaScript workers and commands'));
  }

  /** Bundles the worker module, checks bubblewrap, then starts the worker processes. */
  start(): void {
    const uid0 = canSwitchUid() ? this.settings.uidBase + 2000 : null;
    this.starting = prepareWorkerFiles(this.settings, uid0, (obj, msg) => this.log.warn(obj, msg)).then(
      (files) => {
        this.files = files;
        if (this.closed) return;
        for (let i = 0; i < this.settings.jsWorkers; i++) this.workers.push(this.spawnWorker(i));
      },
      (err: unknown) => {
        this.log.error({ err }, 'JavaScript sandbox workers could not be prepared');
        this.startFailed = true;
        for (const job of this.queue.splice(0)) job.resolve(startFailure());
      },
    );
  }

  private spawnWorker(index: number): Worker {
    const s = this.settings;
    const uid = canSwitchUid() ? s.uidBase + 2000 + index : null;
    const cgroup = this.cgroups.prepare(uid, workerMemoryBytes(s), 'code', 128);
    const child = launchWorker({ settings: s, files: this.files!, uid, cgroup });
    const w: Worker = { child, uid, cgroup, ready: false, started: false, runs: 0, stderrTail: '', runStderr: '', oomsAtStart: 0 };
    child.stderr?.on('data', (d: Buffer) => {
      const text = d.toString('utf8');
      w.stderrTail = (w.stderrTail + text).slice(-4000);
      if (w.job) w.runStderr = (w.runStderr + text).slice(-4000);
    });
    child.on('message', (m: FromWorker) => this.onMessage(w, m));
    child.on('error', (err) => this.log.warn({ err }, 'js sandbox worker error'));
    child.on('exit', (code, signal) => this.onExit(w, index, code, signal));
    return w;
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
    const ac = new AbortController();
    // Counted here, whatever the worker's own count says (it may not be the worker speaking).
    const refused =
      job.fetches.size >= MAX_FETCHES
        ? `too many fetches in flight (the sandbox allows ${MAX_FETCHES})`
        : job.fetchedBytes >= FETCH_RUN_MAX_BYTES
          ? `this run already fetched ${FETCH_RUN_MAX_BYTES} bytes, the most one run may`
          : undefined;
    if (!refused) job.fetches.set(fid, ac);
    let res: string;
    try {
      if (refused) throw new Error(refused);
      if (!job.req.fetch) throw new Error('network access is not available in this sandbox');
      const r = parseFetch(raw);
      const req: SandboxFetchRequest = { url: r.url, method: r.method, headers: r.headers, body: r.body === undefined ? undefined : Buffer.from(r.body, 'base64') };
      const out = await job.req.fetch(req, ac.signal);
      if (out.body.length > FETCH_MAX_BYTES) throw new Error(`response larger than ${FETCH_MAX_BYTES} bytes`);
      job.fetchedBytes += out.body.length;
      if (job.fetchedBytes > FETCH_RUN_MAX_BYTES) throw new Error(`responses of this run exceed ${FETCH_RUN_MAX_BYTES} bytes in all`);
      res = JSON.stringify({ status: out.status, statusText: out.statusText, url: out.url, headers: out.headers, body: Buffer.from(out.body).toString('base64') });
    } catch (err) {
      res = JSON.stringify({ error: err instanceof Error ? err.message : String(err) });
    } finally {
      if (!refused) job.fetches.delete(fid);
    }
    if (w.job === job && w.child.connected) w.child.send({ t: 'fetch-result', id: job.msg.id, fid, res } satisfies ToWorker);
  }

  private finishJob(w: Worker, result: SandboxResult): void {
    const job = w.job;
    if (!job) return;
    w.job = undefined;
    w.runStderr = '';
    clearTimeout(w.backstop);
    for (const ac of job.fetches.values()) ac.abort();
    // The worker cut the result already; cut again, since a worker is where an escape would land.
    job.resolve(capResult(result, { maxLines: job.msg.maxLines, maxBytes: job.msg.maxBytes }));
    if (++w.runs >= this.settings.jsRecycleAfter && !this.closed) this.kill(w);
  }

  private onExit(w: Worker, index: number, code: number | null, exitSignal: NodeJS.Signals | null): void {
    // Never given another run, even before its successor replaces it in the list.
    w.ready = false;
    const i = this.workers.indexOf(w);
    // Under bubblewrap a signal that killed node arrives as the launcher's exit status 128 + n.
    const signal = exitSignal ?? signalOf(code);
    if (w.job) {
      const tail = w.runStderr;
      const oom = this.cgroups.oomKills(w.cgroup) > w.oomsAtStart;
      const memory = oom || /heap|memory|allocation|OOM/i.test(tail) || signal === 'SIGABRT' || signal === 'SIGTRAP';
      const error = w.backstopFired
        ? timeoutError(w.job.msg.timeoutMs)
        : memory
          ? { name: 'MemoryLimitError', value: `The code exceeded the memory limit of ${w.job.msg.memoryMb} MB.`, traceback: '' }
          : { name: 'SandboxCrashError', value: `The sandbox stopped unexpectedly (${signal ?? `exit ${code}`}).`, traceback: '' };
      this.finishJob(w, { stdout: [], stderr: [], truncated: false, error, durationMs: 0 });
    }
    if (i < 0 || this.closed) return;
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
        if (idx >= 0) this.workers[idx] = this.spawnWorker(index);
      });
    };
    if (delay) setTimeout(replace, delay).unref();
    else replace();
  }

  private dispatch(): void {
    for (const w of this.workers) {
      if (this.queue.length === 0) return;
      if (!w.ready || w.job || !w.child.connected) continue;
      const job = this.queue.shift()!;
      w.job = job;
      w.runStderr = '';
      w.oomsAtStart = this.cgroups.oomKills(w.cgroup);
      w.backstop = setTimeout(() => {
        w.backstopFired = true;
        this.kill(w);
      }, job.msg.timeoutMs + BACKSTOP_MS);
      w.child.send(job.msg satisfies ToWorker, (err) => {
        // The channel broke (the worker is dying): no exit of its will answer this run any more.
        if (err && w.job === job) {
          this.finishJob(w, { stdout: [], stderr: [], truncated: false, durationMs: 0, error: { name: 'SandboxCrashError', value: 'The sandbox stopped unexpectedly before the run started.', traceback: '' } });
          this.kill(w);
        }
      });
    }
  }

  private kill(w: Worker): void {
    w.killedOnPurpose = true;
    w.ready = false;
    // The launcher's process group and, with a uid of its own, every process of that uid.
    w.killing ??= killSandbox(w.child, w.uid);
  }

  /** Runs JavaScript; see {@link JsSandbox.run}. */
  async run(req: JsRunRequest): Promise<SandboxResult> {
    if (this.closed) throw new BusyError(BUSY_MESSAGE);
    let bundle: string | undefined;
    if (req.commands?.trim()) {
      const prepared = await installAndBundle(req, { pool: this.commandsPool, cgroups: this.cgroups, settings: this.settings });
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
      timeoutMs: req.timeoutMs ?? s.timeoutMs,
      memoryMb: s.jsMemoryMb,
      maxLines: s.maxOutputLines,
      maxBytes: s.maxOutputBytes,
    };
    return new Promise<SandboxResult>((resolve) => {
      const job: Job = { msg, req, resolve, fetches: new Map(), fetchedBytes: 0 };
      const onAbort = () => {
        const qi = this.queue.indexOf(job);
        if (qi >= 0) this.queue.splice(qi, 1);
        const w = this.workers.find((x) => x.job === job);
        if (w) this.kill(w);
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

  /** Stops every worker and answers queued runs with 429. */
  async close(): Promise<void> {
    this.closed = true;
    this.commandsPool.close();
    for (const job of this.queue.splice(0)) {
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

/** The answer of runs queued while the workers could not be prepared. */
function startFailure(): SandboxResult {
  return { stdout: [], stderr: [], truncated: false, durationMs: 0, error: { name: 'SandboxError', value: 'The JavaScript sandbox could not start.', traceback: '' } };
}
