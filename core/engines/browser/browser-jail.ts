/**
 * How each Chromium of the browser pool is confined (issue 24: the browser was the one engine
 * still started as uid 0 with the service's environment and no memory bound). It keeps the
 * host's network namespace: pages reach the web through the SSRF guard proxy on loopback.
 * - an environment of its own (browser-env.ts);
 * - as root: a uid of its own, from a host-wide uid block this process claims for its browsers
 *   (the sandboxes' claim, uid-block.ts), so a renderer exploit is neither root nor able to read
 *   the data directory; its profile (and HOME) is a folder that uid owns, under a root-owned
 *   folder in the system temp dir it can pass through (the data dir may be closed to others);
 * - as root, where a memory cgroup can be made (v2, or v1's memory hierarchy): the browser's
 *   whole process tree joins a group of its uid limited to `BROWSER_MEMORY_MB`; the kernel kills
 *   what would pass it (a renderer first: Chromium gives renderers the higher OOM score), and the
 *   pool then replaces that browser. No `RLIMIT_AS` fallback: V8 reserves far more address space
 *   than it uses, so a limit that bounds anything would stop pages from starting. Where no group
 *   can be made, a warning says so once and the browser has no memory bound.
 * A small launcher script, given to puppeteer as the executable, joins the group and drops the
 * uid before it execs Chromium in its own place (same pid, so puppeteer's signals reach the
 * browser, and the CDP pipe fds are inherited).
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxCgroups, cgroupUnavailableWarning, cgroupWarning } from '../sandbox/confinement/cgroup.js';
import { canSwitchUid, killSandbox } from '../sandbox/confinement/os-sandbox.js';
import { claimUidBlock, type UidBlock } from '../sandbox/confinement/uid-block.js';
import { intOr } from '../../util/int-setting.js';
import { browserEnvVars } from './browser-env.js';

/** The pool's confinement settings (from the environment at boot). */
export interface BrowserJailSettings {
  /** Memory of one browser's process tree in bytes; 0: no cap. */
  memoryBytes: number;
  /** Where the host-wide uid block is looked for (`SANDBOX_UID_BASE`). */
  uidBase: number;
  /** The service's variables the browser keeps (browser-env.ts). */
  envVars: Record<string, string>;
}

/** `BROWSER_MEMORY_MB` (default 2048; 0: no cap), `SANDBOX_UID_BASE`, the locale and fonts variables. */
export function browserJailSettings(env: Record<string, string | undefined>): BrowserJailSettings {
  return {
    memoryBytes: intOr(env, 'BROWSER_MEMORY_MB', 2048, 0) * 1024 * 1024,
    uidBase: intOr(env, 'SANDBOX_UID_BASE', 61_000, 1000),
    envVars: browserEnvVars(env),
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

/** The uids, cgroups and launcher folder shared by every browser pool of this process. */
class BrowserUids {
  private block: UidBlock | undefined;
  private cgroups: SandboxCgroups | undefined;
  private root: string | undefined;
  private readonly inUse = new Set<number>();

  constructor(private readonly log: Log) {}

  /** Claimed at the first launch, so an instance that never renders holds no block. */
  private start(uidBase: number): { block: UidBlock; cgroups: SandboxCgroups; root: string } {
    if (!this.block) {
      this.block = claimUidBlock(uidBase);
      this.cgroups = new SandboxCgroups(true, cgroupWarning(this.log), cgroupUnavailableWarning(this.log, 'the browser'));
      // Root's, 0711: each uid passes through to its own profile and launcher, lists nothing.
      this.root = mkdtempSync(join(tmpdir(), 'cia-browser-'));
      chmodSync(this.root, 0o711);
      process.once('exit', () => this.close());
    }
    return { block: this.block, cgroups: this.cgroups!, root: this.root! };
  }

  lease(settings: BrowserJailSettings, binary: string): BrowserLease {
    const { block, cgroups, root } = this.start(settings.uidBase);
    let offset = 1;
    while (this.inUse.has(offset)) offset++;
    this.inUse.add(offset);
    const uid = block.base + offset;
    // A group per uid: a retiring browser's memory never counts against its successor's cap.
    const group = settings.memoryBytes > 0 ? cgroups.prepare(uid, settings.memoryBytes) : undefined;
    const oomSeen = cgroups.oomKills(group);
    const launcher = join(root, `chromium-${uid}.sh`);
    const enter = group ? `echo $$ > ${quote(join(group, 'cgroup.procs'))} || exit 125\n` : '';
    const drop = `/usr/bin/setpriv --reuid=${uid} --regid=${uid} --clear-groups --inh-caps=-all --bounding-set=-all --`;
    writeFileSync(launcher, `#!/bin/sh\n${enter}exec ${drop} ${quote(binary)} "$@"\n`, { mode: 0o700 });
    const profileRoot = join(root, `u${uid}`);
    mkdirSync(profileRoot, { recursive: true, mode: 0o700 });
    chownSync(profileRoot, uid, uid);
    let released: Promise<void> | undefined;
    return {
      executablePath: launcher,
      profileRoot,
      own: (dir) => chownSync(dir, uid, uid),
      capped: group !== undefined,
      overMemory: () => cgroups.oomKills(group) > oomSeen,
      release: () =>
        (released ??= (async () => {
          // A renderer the browser did not take down with it would keep the uid's memory and CPU.
          await killSandbox(undefined, uid).catch(() => undefined);
          rmSync(launcher, { force: true });
          rmSync(profileRoot, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
          this.inUse.delete(offset);
        })()),
    };
  }

  private close(): void {
    if (this.root) rmSync(this.root, { recursive: true, force: true });
    this.cgroups?.close();
    this.block?.release();
  }
}

let shared: BrowserUids | undefined;

/**
 * The confinement of the next browser to launch. When the service is not root there is no uid to
 * drop to and no group it may make: the binary runs as the service, with only its own environment.
 */
export function leaseBrowserJail(settings: BrowserJailSettings, binary: string, defaultProfileRoot: string, log: Log): BrowserLease {
  if (!canSwitchUid()) {
    return { executablePath: binary, profileRoot: defaultProfileRoot, own: () => undefined, capped: false, overMemory: () => false, release: async () => undefined };
  }
  shared ??= new BrowserUids(log);
  return shared.lease(settings, binary);
}

/** A single-quoted shell word. */
function quote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}
