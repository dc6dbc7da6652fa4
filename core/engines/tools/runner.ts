/**
 * Runs local tools confined (jail.ts) and bounded: a uid of the engine's block per run (so the
 * whole process tree of a run can be killed by uid, and RLIMIT_NPROC counts that run alone), a
 * memory cgroup per uid where one is writable (else RLIMIT_AS), CPU and file-size rlimits, a wall
 * clock, the caller's signal and an output cap. Every way a run can end is told apart, so a lane
 * can answer a tool's refusal of the input as a 400 and a killed tool as the service's fault.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { BusyError } from '../../errors.js';
import { SandboxCgroups, cgroupUnavailableWarning, cgroupWarning } from '../sandbox/confinement/cgroup.js';
import { canSwitchUid, killSandbox } from '../sandbox/confinement/os-sandbox.js';
import { seccompProgram } from '../sandbox/confinement/seccomp.js';
import { withOwnUids, type UidBlock } from '../sandbox/confinement/uid-block.js';
import { UidPool } from '../sandbox/confinement/uid-pool.js';
import { presentEtc, toolArgv, toolEnv } from './jail.js';
import { fairNice, RunsByKey } from './priority.js';
import type { ToolSettings } from './settings.js';
import { ToolError, type ToolResult, type ToolRunOptions } from './types.js';

/** The 429 text when every tool slot is taken and too many runs wait. */
const BUSY_TEXT = 'The media tools are busy. Please try again later.';
/** What a tool prints when an allocation fails under RLIMIT_AS. */
const OUT_OF_MEMORY = /cannot allocate memory|out of memory|std::bad_alloc|memory allocation failed|Error in pixCreate|failed to allocate/i;

/** Logger shape the runner needs. */
interface Log {
  warn(obj: object, msg: string): void;
}

/** The confined tool runner of one engine. */
export class ToolRunner {
  private readonly pool: UidPool;
  private readonly block: UidBlock | undefined;
  private readonly gid: number | null;
  private readonly cgroups: SandboxCgroups;
  private readonly etc: string[];
  private readonly env: Record<string, string>;
  private readonly running = new Set<Promise<unknown>>();
  /** Runs going per key: a key's further runs start at a lower priority (priority.ts `fairNice`). */
  private readonly byKey = new RunsByKey();
  /** Aborted by `close()`: runs still going are killed rather than waited for. */
  private readonly closing = new AbortController();

  constructor(
    readonly settings: ToolSettings,
    serviceEnv: Record<string, string | undefined>,
    log: Log,
  ) {
    const root = canSwitchUid();
    const { settings: own, block } = withOwnUids({ uidBase: settings.uidBase }, root);
    this.block = block;
    // The block's first uid is the tool group's gid; runs take the uids after it.
    this.gid = block ? own.uidBase : null;
    this.pool = new UidPool(settings.slots, block ? own.uidBase + 1 : null, 10_000);
    this.cgroups = new SandboxCgroups(root, cgroupWarning(log), cgroupUnavailableWarning(log, 'local tools'));
    this.etc = presentEtc(existsSync);
    this.env = toolEnv(serviceEnv);
    this.bwrap = this.probe(log);
  }

  private readonly bwrap: string | null;

  /**
   * Whether bubblewrap confines a run here, probed once with the shape of a real run (uid drop
   * included, ~10 ms). False logs loudly: tools then run without namespaces (network, host files).
   */
  private probe(log: Log): string | null {
    const s = this.settings;
    const risk = 'local tools (ffmpeg, tesseract, poppler, qpdf) run without namespaces: they can reach the network and read host files';
    if (!existsSync(s.bwrapBin)) {
      log.warn({ bwrap: s.bwrapBin }, `bubblewrap not found (TOOLS_BWRAP_BIN): ${risk}`);
      return null;
    }
    const ids = this.gid === null ? null : { uid: this.gid + 1, gid: this.gid };
    const [bin, ...args] = toolArgv({ bwrapBin: s.bwrapBin, ids, dirs: [], roPaths: [], env: this.env, limits: { cpuSeconds: 10, fsizeBytes: 1 << 20 }, seccomp: false, etc: this.etc }, ['/usr/bin/true']);
    const r = spawnSync(bin!, args, { timeout: 10_000, encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    if (r.status === 0) return s.bwrapBin;
    log.warn({ status: r.status, stderr: r.stderr?.trim() || r.error?.message }, `bubblewrap cannot confine local tools here: ${risk}`);
    return null;
  }

  /** The tool group's gid (scratch folders belong to it), or null when the service is not root. */
  get group(): number | null {
    return this.gid;
  }

  /** Whether each run is bounded by a memory cgroup (else by RLIMIT_AS per process). */
  get memoryCgroup(): boolean {
    return this.cgroups.available;
  }

  /**
   * Makes `dir` a folder tools may use: the tool group's, group-writable, new files inherit the
   * group; what the service already wrote there (an input) becomes the group's too, so a tool of
   * any uid of the block can read it.
   */
  prepareDir(dir: string): void {
    if (this.gid === null) return;
    const gid = this.gid;
    chownSync(dir, 0, gid);
    chmodSync(dir, 0o2770);
    let budget = 1000;
    const walk = (d: string) => {
      for (const entry of readdirSync(d, { withFileTypes: true })) {
        if (--budget < 0 || entry.isSymbolicLink()) continue;
        const path = join(d, entry.name);
        const st = lstatSync(path);
        if (st.gid !== gid) chownSync(path, st.uid, gid);
        if (entry.isDirectory()) {
          chmodSync(path, (st.mode & 0o7777) | 0o2070);
          walk(path);
        } else if (entry.isFile() && (st.mode & 0o060) !== 0o060) chmodSync(path, (st.mode & 0o7777) | 0o060);
      }
    };
    walk(dir);
  }

  /** Runs `cmd args` confined; rejects with a {@link ToolError} saying how it failed. */
  async run(cmd: string, args: string[], opts: ToolRunOptions): Promise<ToolResult> {
    if (opts.signal?.aborted) throw opts.signal.reason;
    let lease;
    try {
      lease = await this.pool.acquire(opts.signal, opts.owner);
    } catch (err) {
      if (err instanceof BusyError) throw new BusyError(BUSY_TEXT);
      throw err;
    }
    const signal = opts.signal ? AbortSignal.any([opts.signal, this.closing.signal]) : this.closing.signal;
    // Counted from the lease (where the fair slot queue admitted it) until the slot is freed.
    const key = opts.owner ?? '';
    const nice = fairNice(this.settings.nice, this.settings.niceStep, this.byKey.start(key));
    const work = this.runAs(lease.uid, cmd, args, { ...opts, signal }, nice).finally(() => {
      this.byKey.end(key);
      lease.release();
    });
    this.running.add(work);
    try {
      return await work;
    } catch (err) {
      // Killed by a shutdown, not by its caller: the service's failure, never the caller's input.
      if (err instanceof ToolError && err.kind === 'cancelled' && !opts.signal?.aborted) throw new ToolError(`${cmd} was stopped: the service is shutting down`, err.stderr, 'killed');
      throw err;
    } finally {
      this.running.delete(work);
    }
  }

  private async runAs(uid: number | null, cmd: string, args: string[], opts: ToolRunOptions, nice: number): Promise<ToolResult> {
    const s = this.settings;
    const memory = Math.min(opts.memoryBytes ?? s.memoryBytes, s.memoryBytes);
    const cgroup = this.cgroups.prepare(uid, memory, 'code', s.maxProcesses);
    const oomBefore = this.cgroups.oomKills(cgroup);
    try {
      for (const dir of opts.dirs ?? []) this.prepareDir(dir);
    } catch (err) {
      throw new ToolError(`${cmd} could not start: its folder cannot be prepared (${(err as Error).message})`, '', 'start');
    }
    const binary = resolveBinary(cmd);
    const program = this.bwrap ? seccompProgram() : undefined;
    const argv = toolArgv(
      {
        bwrapBin: this.bwrap,
        ids: uid === null || this.gid === null ? null : { uid, gid: this.gid },
        dirs: opts.dirs ?? [],
        roPaths: [...(binary.startsWith('/usr/') ? [] : [binary]), ...(opts.readOnly ?? []).filter((p) => !p.startsWith('/usr/') && existsSync(p))],
        env: this.env,
        // With a cgroup the run as a whole is bounded; RLIMIT_AS would also count the large
        // virtual reservations tools make without touching them.
        limits: { asBytes: cgroup ? undefined : memory, cpuSeconds: s.cpuSeconds, fsizeBytes: s.maxFileBytes, nproc: uid === null ? undefined : s.maxProcesses },
        cgroup,
        seccomp: program !== undefined,
        etc: this.etc,
        nice,
      },
      [binary, ...args],
    );
    const [bin, ...rest] = argv;
    const stdio: ('pipe' | 'ignore')[] = [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'];
    if (program) stdio.push('pipe');
    // The launchers get no secrets either; without bubblewrap this is the tool's whole environment.
    const child = spawn(bin!, rest, { stdio, detached: true, cwd: opts.dirs?.[0] ?? '/tmp', env: this.bwrap ? { PATH: '/usr/bin:/bin' } : this.env });
    if (program) {
      const fd = child.stdio[3] as Writable | null;
      fd?.on('error', () => undefined);
      fd?.end(program);
    }
    const outcome = await drive(child, uid, cmd, { ...opts, timeoutMs: Math.min(opts.timeoutMs, s.maxTimeoutMs) });
    if (outcome.failure) throw outcome.failure;
    if (this.cgroups.oomKills(cgroup) > oomBefore) throw new ToolError(`${cmd} went over its memory limit`, outcome.stderr, 'memory');
    if (outcome.signal) throw new ToolError(`${cmd} was killed by ${outcome.signal}`, outcome.stderr, 'killed');
    if (outcome.code !== 0) {
      if (!cgroup && OUT_OF_MEMORY.test(outcome.stderr)) throw new ToolError(`${cmd} ran out of memory`, outcome.stderr, 'memory');
      if (outcome.code === 125 || outcome.code === 126 || outcome.code === 127) throw new ToolError(`${cmd} could not start (exit ${outcome.code})`, outcome.stderr, 'start');
      throw Object.assign(new ToolError(`${cmd} exited with ${outcome.code}`, outcome.stderr, 'exit'), { code: outcome.code ?? undefined, stdout: outcome.stdout });
    }
    return { stdout: outcome.stdout, stderr: outcome.stderr, code: 0 };
  }

  /** Kills running tools and waits for them, then releases the uid block and the cgroups. */
  async close(): Promise<void> {
    this.pool.close();
    this.closing.abort(new Error('the tool engine is closing'));
    await Promise.allSettled([...this.running]);
    this.cgroups.close();
    this.block?.release();
  }
}

/** The tool's absolute path (bubblewrap needs one); a bare name is looked up in /usr/bin and /bin. */
function resolveBinary(cmd: string): string {
  if (cmd.startsWith('/')) return existsSync(cmd) ? realpathSync(cmd) : cmd;
  for (const dir of ['/usr/bin', '/usr/local/bin', '/bin']) {
    const p = `${dir}/${cmd}`;
    if (existsSync(p)) return realpathSync(p);
  }
  return `/usr/bin/${cmd}`;
}

interface Outcome {
  stdout: Buffer;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  failure?: ToolError;
}

/** Feeds stdin, collects capped output, and kills the run's whole tree on timeout, abort or flood. */
function drive(child: ChildProcess, uid: number | null, cmd: string, opts: ToolRunOptions): Promise<Outcome> {
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
  const maxStderr = opts.maxStderr ?? 8192;
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let failure: ToolError | undefined;
    let killing: Promise<void> | undefined;
    const stop = (error: ToolError) => {
      failure ??= error;
      killing ??= killSandbox(child, uid);
    };
    const timer = setTimeout(() => stop(new ToolError(`${cmd} took longer than ${opts.timeoutMs} ms`, '', 'timeout')), opts.timeoutMs);
    const onAbort = () => stop(new ToolError(`${cmd} cancelled`, '', 'cancelled'));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (b: Buffer) => {
      size += b.length;
      if (size > maxBytes) return stop(new ToolError(`${cmd} wrote more than ${maxBytes} bytes`, '', 'output'));
      out.push(b);
    });
    child.stderr!.on('data', (b: Buffer) => {
      if (stderr.length < maxStderr) stderr += b.toString();
    });
    if (opts.stdin && child.stdin) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(opts.stdin);
    }
    child.on('error', (err) => {
      failure ??= new ToolError(`${cmd} could not start: ${err.message}`, '', 'start');
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      // Everything of a run lives in bwrap's pid namespace and dies with it; after a kill, the
      // uid sweep has to finish before the slot is handed to the next run.
      void (killing ?? Promise.resolve()).then(() => {
        if (failure) failure.stderr ||= stderr;
        resolve({ stdout: Buffer.concat(out), stderr, code, signal, failure });
      });
    });
  });
}
