/**
 * How each Chromium of the browser pool is confined (issue 24: the browser was the one engine
 * still started as uid 0 with the service's environment, the host's network and no bounds):
 * - an environment of its own (browser-env.ts);
 * - a jail (browser-bwrap.ts): namespaces of its own, network included, and a file system of
 *   `/usr`, a few `/etc` files, a private `/tmp` and its own profile. Its only way out is the
 *   guard proxy, reached through a Unix socket and a forwarder on the jail's own loopback
 *   (browser-exits.ts), so a page or an exploit that ignores the proxy setting reaches nothing,
 *   neither loopback services (the database, Redis, the service's own port) nor the LAN;
 * - as root: a uid of its own, from a host-wide uid block this process claims for its browsers
 *   (the sandboxes' claim, uid-block.ts), so a renderer exploit is neither root nor able to read
 *   the data directory; its profile (and HOME) is a folder that uid owns, under a root-owned
 *   folder in the system temp dir it can pass through (the data dir may be closed to others);
 * - as root, where a memory cgroup can be made (v2, or v1's memory hierarchy): the browser's
 *   whole process tree joins a group of its uid limited to `BROWSER_MEMORY_MB`; the kernel kills
 *   what would pass it (a renderer first: Chromium gives renderers the higher OOM score), and the
 *   pool then replaces that browser. No `RLIMIT_AS` fallback: V8 reserves far more address space
 *   than it uses, so a limit that bounds anything would stop pages from starting. Where no group
 *   can be made, a warning says so once and the browser has no memory bound;
 * - as root, a CPU bound of `BROWSER_CPU_PERCENT` of one core for the same tree (browser-cpu.ts).
 * A small launcher script, given to puppeteer as the executable, joins the groups and starts the
 * jail, which drops the uid, starts the forwarders and execs Chromium (the CDP pipe fds are
 * inherited all the way; puppeteer kills the launcher's process group, and the jail dies with it).
 * Where the jail cannot be made (no bubblewrap or socat, no namespaces), a warning says so once
 * and Chromium runs on the host's network and file system, with the uid, groups and environment
 * still its own: a page never fails to render for want of a jail.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxCgroups, cgroupUnavailableWarning, cgroupWarning } from '../sandbox/confinement/cgroup.js';
import { canSwitchUid, killSandbox } from '../sandbox/confinement/os-sandbox.js';
import { claimUidBlock, type UidBlock } from '../sandbox/confinement/uid-block.js';
import { intOr } from '../../util/int-setting.js';
import { browserEnvVars } from './browser-env.js';
import { chromiumBwrap, forwarderScript } from './browser-bwrap.js';
import { BrowserCpuGroups } from './browser-cpu.js';
import type { BrowserExits } from './browser-exits.js';

/** The pool's confinement settings (from the environment at boot). */
export interface BrowserJailSettings {
  /** Memory of one browser's process tree in bytes; 0: no cap. */
  memoryBytes: number;
  /** Where the host-wide uid block is looked for (`SANDBOX_UID_BASE`). */
  uidBase: number;
  /** The service's variables the browser keeps (browser-env.ts). */
  envVars: Record<string, string>;
  /** CPU of one browser's process tree, in percent of one core; 0: no bound. */
  cpuPercent: number;
  /** bubblewrap, for the jail (`BROWSER_BWRAP_BIN`). */
  bwrapBin: string;
  /** The engine's guard proxies, served to each jailed browser (set by the engine, index.ts). */
  exits?: BrowserExits;
}

/**
 * The default CPU bound: three quarters of the machine (150% on two cores), at least one core.
 * A normal page keeps about one core busy in bursts; a page that spins for its whole timeout
 * then leaves a quarter of the machine to the service and the other engines.
 */
export function defaultBrowserCpuPercent(cores = cpus().length): number {
  return Math.max(100, Math.floor(cores * 75));
}

/**
 * `BROWSER_MEMORY_MB` (default 2048; 0: no cap), `BROWSER_CPU_PERCENT` (see `defaultBrowserCpuPercent`;
 * 0: no bound), `BROWSER_BWRAP_BIN`, `SANDBOX_UID_BASE`, the locale and fonts variables.
 */
export function browserJailSettings(env: Record<string, string | undefined>): BrowserJailSettings {
  return {
    memoryBytes: intOr(env, 'BROWSER_MEMORY_MB', 2048, 0) * 1024 * 1024,
    uidBase: intOr(env, 'SANDBOX_UID_BASE', 61_000, 1000),
    envVars: browserEnvVars(env),
    cpuPercent: intOr(env, 'BROWSER_CPU_PERCENT', defaultBrowserCpuPercent(), 0),
    bwrapBin: env.BROWSER_BWRAP_BIN || '/usr/bin/bwrap',
  };
}

/** One browser's confinement, held from its launch until it has exited. */
export interface BrowserLease {
  /** What puppeteer starts: the launcher script, or the binary itself when nothing is to drop or join. */
  executablePath: string;
  /** Where this browser's profile folder is made. */
  profileRoot: string;
  /** Gives the profile folder to the browser's uid. */
  own(dir: string): void;
  /** Whether a memory group bounds this browser (else `overMemory` is always false). */
  capped: boolean;
  /** True once the kernel has killed a process of this browser for passing its memory cap. */
  overMemory(): boolean;
  /** Kills whatever of the browser's uid is left and frees the uid (idempotent). */
  release(): Promise<void>;
}

interface Log {
  warn(obj: object, msg: string): void;
}

/** What the jail needs at hand: a bubblewrap that confines here and socat inside it, probed once. */
function probeJail(bwrapBin: string, root: string, uid: number | null, log: Log): boolean {
  const risk = 'Chromium runs on the host\'s network and file system (its uid, memory group and environment are still its own)';
  if (!existsSync(bwrapBin)) {
    log.warn({ bwrap: bwrapBin }, `bubblewrap not found (BROWSER_BWRAP_BIN): ${risk}`);
    return false;
  }
  const dir = mkdtempSync(join(root, 'probe-'));
  try {
    if (uid !== null) chownSync(dir, uid, uid);
    // The jail of a real launch, the forwarders' program asked for its version instead of Chromium.
    const [bin, ...args] = [...chromiumBwrap({ bwrap: bwrapBin, uid, profileRoot: dir, exitsDir: dir }), '/usr/bin/socat', '-V'];
    const r = spawnSync(bin!, args, { timeout: 10_000, encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    if (r.status === 0) return true;
    log.warn({ status: r.status, stderr: r.stderr?.trim().slice(0, 500) || r.error?.message }, `the browser's jail cannot be made here (bubblewrap namespaces, socat): ${risk}`);
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The uids, cgroups, jail probe and launcher folder shared by every browser pool of this process. */
class BrowserJails {
  private block: UidBlock | undefined;
  private cgroups: SandboxCgroups | undefined;
  private cpu: BrowserCpuGroups | undefined;
  private root: string | undefined;
  private readonly inUse = new Set<number>();
  /** Per bubblewrap path: whether the jail works here. */
  private readonly probed = new Map<string, boolean>();

  constructor(
    private readonly log: Log,
    /** The service is root: uids to drop to and groups to make. */
    private readonly asRoot: boolean,
  ) {}

  /** Claimed at the first launch, so an instance that never renders holds no block. */
  private start(uidBase: number): string {
    if (!this.root) {
      if (this.asRoot) {
        this.block = claimUidBlock(uidBase);
        this.cgroups = new SandboxCgroups(true, cgroupWarning(this.log), cgroupUnavailableWarning(this.log, 'the browser'));
        this.cpu = new BrowserCpuGroups((reason) => this.log.warn({ reason }, 'no writable cpu cgroup for the browser: it has no CPU bound (BROWSER_CPU_PERCENT)'));
      }
      // Root's, 0711: each uid passes through to its own profile, exits and launcher, lists nothing.
      this.root = mkdtempSync(join(tmpdir(), 'cia-browser-'));
      chmodSync(this.root, 0o711);
      process.once('exit', () => this.close());
    }
    return this.root;
  }

  /** Whether browsers launched with `settings` get the jail (probed on first use, warned once if not). */
  jailed(settings: BrowserJailSettings): boolean {
    const root = this.start(settings.uidBase);
    let ok = this.probed.get(settings.bwrapBin);
    if (ok === undefined) {
      // The block's first uid is no browser's (they take the ones after it): the probe's.
      ok = probeJail(settings.bwrapBin, root, this.block ? this.block.base : null, this.log);
      this.probed.set(settings.bwrapBin, ok);
    }
    return ok;
  }

  lease(settings: BrowserJailSettings, binary: string, defaultProfileRoot: string): BrowserLease {
    const root = this.start(settings.uidBase);
    const jailed = this.jailed(settings);
    let offset = 1;
    while (this.inUse.has(offset)) offset++;
    this.inUse.add(offset);
    const uid = this.block ? this.block.base + offset : null;
    const name = `${uid ?? `p${offset}`}`;
    // A group per uid: a retiring browser's memory never counts against its successor's cap.
    const group = uid !== null && settings.memoryBytes > 0 ? this.cgroups!.prepare(uid, settings.memoryBytes) : undefined;
    const oomSeen = this.cgroups?.oomKills(group) ?? 0;
    const cpuGroup = uid !== null && settings.cpuPercent > 0 ? this.cpu!.prepare(uid, settings.cpuPercent, group) : undefined;
    // Not root: the service's own uid, and its profile where the pool keeps it (the data dir).
    const profileRoot = uid !== null ? join(root, `u${uid}`) : defaultProfileRoot;
    mkdirSync(profileRoot, { recursive: true, mode: 0o700 });
    if (uid !== null) chownSync(profileRoot, uid, uid);
    // The folder of this browser's exit sockets: its uid may enter it, no other browser's.
    const exitsDir = join(root, `n${name}`);
    mkdirSync(exitsDir, { mode: 0o700 });
    if (uid !== null) chownSync(exitsDir, uid, uid);
    const detach = jailed ? settings.exits?.attach(exitsDir, uid) : undefined;
    const launcher = join(root, `chromium-${name}.sh`);
    const enter = [group, cpuGroup].filter((g) => g !== undefined).map((g) => `echo $$ > ${quote(join(g, 'cgroup.procs'))} || exit 125\n`).join('');
    const drop = uid === null ? '' : `/usr/bin/setpriv --reuid=${uid} --regid=${uid} --clear-groups --inh-caps=-all --bounding-set=-all -- `;
    const start = jailed
      ? `${chromiumBwrap({ bwrap: settings.bwrapBin, uid, profileRoot, exitsDir }).map(quote).join(' ')} /bin/sh -c ${quote(forwarderScript())} ${quote(binary)} "$@"`
      : `${drop}${quote(binary)} "$@"`;
    writeFileSync(launcher, `#!/bin/sh\n${enter}exec ${start}\n`, { mode: 0o700 });
    let released: Promise<void> | undefined;
    return {
      executablePath: launcher,
      profileRoot,
      own: (dir) => uid !== null && chownSync(dir, uid, uid),
      capped: group !== undefined,
      overMemory: () => (this.cgroups?.oomKills(group) ?? 0) > oomSeen,
      release: () =>
        (released ??= (async () => {
          // A renderer the browser did not take down with it would keep the uid's memory and CPU.
          if (uid !== null) await killSandbox(undefined, uid).catch(() => undefined);
          detach?.();
          rmSync(launcher, { force: true });
          rmSync(exitsDir, { recursive: true, force: true });
          if (uid !== null) rmSync(profileRoot, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
          this.inUse.delete(offset);
        })()),
    };
  }

  private close(): void {
    if (this.root) rmSync(this.root, { recursive: true, force: true });
    this.cgroups?.close();
    this.cpu?.close();
    this.block?.release();
  }
}

let shared: BrowserJails | undefined;

function jails(log: Log): BrowserJails {
  shared ??= new BrowserJails(log, canSwitchUid());
  return shared;
}

/** Whether browsers launched with `settings` run in the jail, with the exits as their only network (index.ts picks their proxy URLs by it). */
export function browserJailed(settings: BrowserJailSettings, log: Log): boolean {
  return jails(log).jailed(settings);
}

/**
 * The confinement of the next browser to launch. When the service is not root there is no uid to
 * drop to and no group it may make: the browser runs as the service, in the jail where bubblewrap
 * can make one unprivileged (a user namespace), with only its own environment.
 */
export function leaseBrowserJail(settings: BrowserJailSettings, binary: string, defaultProfileRoot: string, log: Log): BrowserLease {
  return jails(log).lease(settings, binary, defaultProfileRoot);
}

/** A single-quoted shell word. */
function quote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}
