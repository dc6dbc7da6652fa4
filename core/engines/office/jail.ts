/**
 * How one LibreOffice worker is launched (issue 18, findings 7 and 8; design: "Office
 * supervisor"). LibreOffice follows links inside the documents it opens (`<img src>` in HTML,
 * linked images in Office files) and prints fields such as the document's own path, so each
 * worker gets:
 *  - bubblewrap (`OFFICE_BWRAP_BIN`) with no network and a file system of `/usr`, the few `/etc`
 *    files fonts and the loader need, its own profile and its own job directory, nothing else of
 *    the host: neither the other workers' profiles and jobs nor the data directory;
 *  - the job directory mounted at a neutral path (`/job`), so a file-name field prints
 *    `/job/input.docx`, not where the service keeps its data;
 *  - an environment of its own (locale, time zone, PATH, HOME), never the service's, which holds
 *    `ADMIN_TOKEN`, provider keys and the files secret;
 *  - when the service is root, a uid of its own from a host-wide block (the sandboxes' uid-block
 *    claim), dropped inside the jail by `setpriv` with every capability, so a LibreOffice exploit
 *    is neither root nor able to touch another worker's files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bwrapBind, bwrapDroppingRoot } from '../sandbox/confinement/bwrap-base.js';

/** Read-only host paths LibreOffice needs besides `/usr` (bound when present). */
const OFFICE_ETC = [
  '/etc/fonts',
  '/etc/libreoffice',
  '/etc/ld.so.cache',
  '/etc/localtime',
  '/etc/alternatives',
  '/etc/nsswitch.conf',
  '/var/cache/fontconfig',
];

/** Where the current job's directory appears inside the jail (what a file-name field prints). */
export const JOB_MOUNT = '/job';
/** Where the driver script appears inside the jail. */
export const DRIVER_MOUNT = '/office/driver.py';

/** Variables of the service's environment a worker may see: locale and time zone, nothing secret. */
const PASSED = /^(LANG|LANGUAGE|LC_[A-Z_]+|TZ)$/;

/**
 * The whole environment of a worker: PATH, HOME (its profile, where fontconfig keeps its cache),
 * TMPDIR and the service's locale and time-zone variables. UTF-8 by default, so file names and
 * the driver's output are not read as ASCII.
 */
export function officeEnv(serviceEnv: Record<string, string | undefined>, home: string): Record<string, string> {
  const env: Record<string, string> = { PATH: '/usr/bin:/bin', HOME: home, TMPDIR: '/tmp', LANG: 'C.UTF-8' };
  for (const [k, v] of Object.entries(serviceEnv)) if (PASSED.test(k) && v) env[k] = v;
  return env;
}

/** One worker's launch: what is bound and which uid runs it. */
export interface JailSpec {
  bwrap: string;
  driverPath: string;
  /** LibreOffice binary; bound read-only when it lives outside `/usr` (a wrapper script). */
  binary: string;
  /** Bound at its host path: stale processes are found by it (profiles.ts `killStale`). */
  profileDir: string;
  /** Bound read-write at `JOB_MOUNT`. */
  jobDir: string;
  /** Unprivileged uid to drop to inside the jail; null keeps the service's own (not root). */
  uid: number | null;
  /**
   * Directory with the `passwd` and `group` the jail sees (see `writeIdentity`); unset binds the
   * host's. LibreOffice refuses to start under a uid without a passwd entry.
   */
  identityDir?: string;
  env: Record<string, string>;
}

/**
 * Writes the `passwd` and `group` of a worker's jail into `dir`: root and the worker's uid, whose
 * home is `home`. Nothing of the host's accounts is shown to a document.
 */
export function writeIdentity(dir: string, uid: number, home: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  writeFileSync(join(dir, 'passwd'), `root:x:0:0:root:/root:/usr/sbin/nologin\noffice:x:${uid}:${uid}:LibreOffice worker:${home}:/usr/sbin/nologin\n`, { mode: 0o644 });
  writeFileSync(join(dir, 'group'), `root:x:0:\noffice:x:${uid}:\n`, { mode: 0o644 });
}


/** The `setpriv` prefix that drops to `uid`: no groups, no capabilities, none to regain. */
function dropTo(uid: number): string[] {
  return ['/usr/bin/setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--'];
}

/** The bubblewrap argv that confines one worker; the driver's own argv is appended by the caller. */
export function officeJail(spec: JailSpec): string[] {
  // Own pid namespace: /proc shows only the jail, so the service's /proc/<pid>/environ or root
  // cannot be read through a document link.
  const argv = [spec.bwrap, '--unshare-net', '--unshare-uts', '--unshare-ipc', '--unshare-pid', '--die-with-parent'];
  // bwrap runs as the service (root) so it can bind paths the worker's uid cannot traverse
  // (a 0700 data dir); the drop happens inside. LibreOffice's pipe lives in the writable /tmp.
  const made = bwrapDroppingRoot(argv, spec.uid !== null);
  for (const path of OFFICE_ETC) bwrapBind(argv, made, '--ro-bind-try', path, path);
  for (const name of ['passwd', 'group']) bwrapBind(argv, made, '--ro-bind-try', spec.identityDir ? join(spec.identityDir, name) : `/etc/${name}`, `/etc/${name}`);
  const binary = resolve(spec.binary);
  if (!binary.startsWith('/usr/')) bwrapBind(argv, made, '--ro-bind-try', binary, binary);
  bwrapBind(argv, made, '--ro-bind', resolve(spec.driverPath), DRIVER_MOUNT);
  // The profile keeps its host path: stale processes are found by it (profiles.ts).
  bwrapBind(argv, made, '--bind', resolve(spec.profileDir), resolve(spec.profileDir));
  bwrapBind(argv, made, '--bind', resolve(spec.jobDir), JOB_MOUNT);
  // Not /job: bwrap has no right to enter it before the uid drop (it belongs to the worker's uid).
  argv.push('--chdir', '/tmp', '--clearenv');
  for (const [k, v] of Object.entries(spec.env)) argv.push('--setenv', k, v);
  argv.push('--');
  if (spec.uid !== null) argv.push(...dropTo(spec.uid));
  return argv;
}

/** What a worker's launch needs to know. */
export interface LaunchSpec extends Omit<JailSpec, 'bwrap' | 'env'> {
  /** Usable bubblewrap (probed), or null: unconfined. */
  bwrap: string | null;
  python: string;
  /** Arguments of the driver after its script: binary, profile, pipe, start timeout. */
  driverArgs: string[];
  serviceEnv: Record<string, string | undefined>;
}

/** A worker's command line and environment; `uid` is the one it really runs as, `jobPath` the job dir as the driver sees it. */
export function workerCommand(spec: LaunchSpec): { argv: string[]; env: Record<string, string>; uid: number | null; jobPath: string } {
  const env = officeEnv(spec.serviceEnv, spec.profileDir);
  if (spec.bwrap) {
    const jail = officeJail({ ...spec, bwrap: spec.bwrap, env });
    // bwrap clears the environment anyway; it gets none of the service's either.
    return { argv: [...jail, spec.python, DRIVER_MOUNT, ...spec.driverArgs], env: { PATH: env.PATH! }, uid: spec.uid, jobPath: JOB_MOUNT };
  }
  // Unconfined: the service's uid (without the jail's passwd LibreOffice would not start under
  // another one) and the job at its host path; only the environment is still its own.
  return { argv: [spec.python, spec.driverPath, ...spec.driverArgs], env, uid: null, jobPath: spec.jobDir };
}

/**
 * Whether bubblewrap confines a worker here, dropping to `uid` as a worker would: one `true` run
 * inside a jail of the same shape (~10 ms). False logs loudly, since links inside documents then
 * reach the network and host files.
 */
export function jailWorks(spec: JailSpec, log: { warn(o: object, m?: string): void }): boolean {
  const risk = 'LibreOffice runs unconfined: links inside converted documents can reach the network and host files';
  if (!existsSync(spec.bwrap)) {
    log.warn({}, `bubblewrap not found (OFFICE_BWRAP_BIN): ${risk}`);
    return false;
  }
  const [bin, ...args] = [...officeJail(spec), '/bin/true'];
  const probe = spawnSync(bin!, args, { timeout: 10_000, encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
  if (probe.status === 0) return true;
  log.warn({ status: probe.status, stderr: probe.stderr?.trim() || probe.error?.message }, `bubblewrap cannot confine LibreOffice here: ${risk}`);
  return false;
}
