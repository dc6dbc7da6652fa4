/**
 * The JavaScript sandbox pool (spec §4.8, issue 6). Runs go to forked worker processes that hold
 * isolated-vm isolates; one job per worker at a time, a bounded queue in front (429 when full),
 * the wall clock enforced from here as a backstop (isolated-vm's timeout misses awaited
 * promises), and any worker that crashes or overruns is killed and replaced, so a V8 abort costs
 * one worker, never the service. Workers get an empty environment and, when the service is root,
 * an unprivileged uid: even an isolate escape finds no secrets.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PluginLogger } from '../../plugin/types.js';
import type { JsRunRequest, JsSandbox, SandboxFetchRequest, SandboxResult } from './types.js';
import type { FromWorker, RunMessage, ToWorker } from './js-protocol.js';
import type { SandboxSettings } from './settings.js';
import { BusyError } from '../../errors.js';
import { BUSY_MESSAGE, UidPool } from './uid-pool.js';
import { canSwitchUid, killSandbox } from './os-sandbox.js';
import { SandboxCgroups, cgroupWarning } from './cgroup.js';
import { runCommands } from './commands.js';
import { makeRunDir, removeRunRoot } from './run-dir.js';
import { bundleRun } from './js-packages.js';
import { timeoutError } from './python-sandbox.js';

interface Job {
  msg: RunMessage;
  req: JsRunRequest;
  resolve(r: SandboxResult): void;
  fetches: Map<number, AbortController>;
}

interface Worker {
  child: ChildProcess;
  ready: boolean;
  job?: Job;
  backstop?: NodeJS.Timeout;
  backstopFired?: boolean;
  killedOnPurpose?: boolean;
  stderrTail: string;
}

/** Grace after the in-worker limit before the pool kills the worker itself. */
const BACKSTOP_MS = 800;
/** The sandboxed fetch's limits (issue 6: "size/time limits"). */
const FETCH_MAX_BYTES = 10 * 1024 * 1024;

/** Where the worker entry lives: `.ts` under tsx (tests, dev), `.js` when built. */
function workerEntry(): { file: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const ts = here.endsWith('.ts');
  const file = here.replace(/js-sandbox\.(ts|js)$/, `js-worker.${ts ? 'ts' : 'js'}`);
  const execArgv = ['--no-node-snapshot'];
  if (ts) execArgv.push('--import', import.meta.resolve('tsx'));
  return { file, execArgv };
}

/** JavaScript sandbox engine. */
export class JsSandboxEngine implements JsSandbox {
  readonly kind = 'js' as const;
  private readonly workers: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly commandsPool: UidPool;
  /** Memory cgroups of the `commands` and bundling steps. */
  private readonly cgroups: SandboxCgroups;
  private nextId = 1;
  private closed = false;
  private failures = 0;

  constructor(
    private readonly settings: SandboxSettings,
    private readonly log: PluginLogger,
  ) {
    // JS `commands` steps get their own uid range, apart from the Python sandboxes'.
    this.commandsPool = new UidPool(settings.maxConcurrent, canSwitchUid() ? settings.uidBase + 1000 : null, settings.maxQueue);
    this.cgroups = new SandboxCgroups(canSwitchUid(), cgroupWarning(log));
  }

  /** Starts the worker processes. */
  start(): void {
    for (let i = 0; i < this.settings.jsWorkers; i++) this.workers.push(this.spawnWorker(i));
  }

  private spawnWorker(index: number): Worker {
    const { file, execArgv } = workerEntry();
    const s = this.settings;
    const uid = canSwitchUid() ? s.uidBase + 2000 + index : undefined;
    const child = fork(file, [String(s.jsMemoryMb), String(s.maxOutputLines), String(s.maxOutputBytes)], {
      execArgv,
      // No service secrets in the worker: an empty environment.
      env: { PATH: '/usr/bin:/bin', NODE_ENV: 'production' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
      ...(uid !== undefined ? { uid, gid: uid } : {}),
    });
    const w: Worker = { child, ready: false, stderrTail: '' };
    child.stderr?.on('data', (d: Buffer) => {
      w.stderrTail = (w.stderrTail + d.toString('utf8')).slice(-4000);
    });
    child.on('message', (m: FromWorker) => this.onMessage(w, m));
    child.on('error', (err) => this.log.warn({ err }, 'js sandbox worker error'));
    child.on('exit', (code, signal) => this.onExit(w, index, code, signal));
    return w;
  }

  private onMessage(w: Worker, m: FromWorker): void {
    if (m.t === 'ready') {
      w.ready = true;
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
    job.fetches.set(fid, ac);
    let res: string;
    try {
      if (!job.req.fetch) throw new Error('network access is not available in this sandbox');
      const r = JSON.parse(raw) as { url: string; method: string; headers: Record<string, string>; body?: string };
      const req: SandboxFetchRequest = { url: r.url, method: r.method, headers: r.headers, body: r.body === undefined ? undefined : Buffer.from(r.body, 'base64') };
      const out = await job.req.fetch(req, ac.signal);
      if (out.body.length > FETCH_MAX_BYTES) throw new Error(`response larger than ${FETCH_MAX_BYTES} bytes`);
      res = JSON.stringify({ status: out.status, statusText: out.statusText, url: out.url, headers: out.headers, body: Buffer.from(out.body).toString('base64') });
    } catch (err) {
      res = JSON.stringify({ error: err instanceof Error ? err.message : String(err) });
    } finally {
      job.fetches.delete(fid);
    }
    if (w.job === job && w.child.connected) w.child.send({ t: 'fetch-result', id: job.msg.id, fid, res } satisfies ToWorker);
  }

  private finishJob(w: Worker, result: SandboxResult): void {
    const job = w.job;
    if (!job) return;
    w.job = undefined;
    clearTimeout(w.backstop);
    for (const ac of job.fetches.values()) ac.abort();
    job.resolve(result);
  }

  private onExit(w: Worker, index: number, code: number | null, signal: NodeJS.Signals | null): void {
    const i = this.workers.indexOf(w);
    if (w.job) {
      const tail = w.stderrTail;
      const memory = /heap|memory|allocation|OOM/i.test(tail) || signal === 'SIGABRT' || signal === 'SIGTRAP';
      const error = w.backstopFired
        ? timeoutError(w.job.msg.timeoutMs)
        : memory
          ? { name: 'MemoryLimitError', value: `The code exceeded the memory limit of ${w.job.msg.memoryMb} MB.`, traceback: '' }
          : { name: 'SandboxCrashError', value: `The sandbox stopped unexpectedly (${signal ?? `exit ${code}`}).`, traceback: '' };
      this.finishJob(w, { stdout: [], stderr: [], truncated: false, error, durationMs: 0 });
    }
    if (i < 0 || this.closed) return;
    if (!w.ready) this.failures++;
    if (!w.killedOnPurpose) this.log.warn({ code, signal, stderr: w.stderrTail.slice(-500) }, 'js sandbox worker exited; replacing it');
    // A worker that cannot even start (broken install) must not respawn in a tight loop.
    const delay = this.failures > 3 ? 2000 : 0;
    const replace = () => {
      if (this.closed) return;
      const idx = this.workers.indexOf(w);
      if (idx >= 0) this.workers[idx] = this.spawnWorker(index);
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
      w.backstop = setTimeout(() => {
        w.backstopFired = true;
        this.kill(w);
      }, job.msg.timeoutMs + BACKSTOP_MS);
      w.child.send(job.msg satisfies ToWorker);
    }
  }

  private kill(w: Worker): void {
    w.killedOnPurpose = true;
    w.ready = false;
    w.child.kill('SIGKILL');
  }

  /** Runs JavaScript; see {@link JsSandbox.run}. */
  async run(req: JsRunRequest): Promise<SandboxResult> {
    if (this.closed) throw new BusyError(BUSY_MESSAGE);
    let bundle: string | undefined;
    if (req.commands?.trim()) {
      const prepared = await this.prepareBundle(req);
      if ('error' in prepared) return { stdout: [], stderr: [], truncated: false, error: prepared.error, durationMs: 0 };
      bundle = prepared.bundle;
    }
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
      const job: Job = { msg, req, resolve, fetches: new Map() };
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

  /** Runs `commands` and bundles the code with the installed packages, in OS sandboxes. */
  private async prepareBundle(req: JsRunRequest): Promise<{ bundle: string } | { error: SandboxResult['error'] & object }> {
    const lease = await this.commandsPool.acquire(req.signal);
    const dir = await makeRunDir(lease.uid, this.settings.runDirMb);
    try {
      const cgroup = this.cgroups.prepare(lease.uid, this.settings.commandsMemoryMb * 1024 * 1024, 'commands');
      const opts = { settings: this.settings, uid: lease.uid, runDir: dir.path, signal: req.signal, cgroup };
      const failed = await runCommands(req.commands!, opts);
      if (failed) return { error: failed };
      try {
        return await bundleRun(req.code, opts);
      } catch (err) {
        return { error: { name: 'BundleError', value: 'The code and its packages could not be bundled for the sandbox.', traceback: String(err) } };
      }
    } finally {
      await killSandbox(undefined, lease.uid);
      await dir.remove();
      lease.release();
    }
  }

  /** Stops every worker and answers queued runs with 429. */
  async close(): Promise<void> {
    this.closed = true;
    this.commandsPool.close();
    for (const job of this.queue.splice(0)) {
      job.resolve({ stdout: [], stderr: [], truncated: false, error: { name: 'AbortError', value: 'The service is shutting down.', traceback: '' }, durationMs: 0 });
    }
    await Promise.all(
      this.workers.splice(0).map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.child.exitCode !== null || w.child.signalCode !== null) return resolve();
            w.child.once('exit', () => resolve());
            this.kill(w);
          }),
      ),
    );
    await removeRunRoot();
    this.cgroups.close();
  }
}
