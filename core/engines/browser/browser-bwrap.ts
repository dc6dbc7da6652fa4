/**
 * The bubblewrap command line a jailed Chromium starts under (issue 24: one confinement for
 * every external tool; the sandboxes, LibreOffice and the local tools already had theirs):
 * - network, IPC, UTS and PID namespaces of its own: its network holds only its own loopback, on
 *   which the exit forwarders listen (browser-exits.ts); its `/proc` shows only its own processes;
 * - a file system of read-only `/usr`, the few `/etc` files the loader, fonts and TLS need, a
 *   fresh `/dev`, a private `/tmp` (where `--disable-dev-shm-usage` puts shared memory), its
 *   profile folder read-write at its host path (puppeteer names it in `--user-data-dir`) and the
 *   exits folder read-only (connecting to a socket needs no write access to its mount); nothing
 *   else of the host: not the data directory, not the other browsers' profiles;
 * - as root, the uid drop inside (setpriv, every capability gone), since bwrap must bind folders
 *   that uid cannot traverse; as another user bwrap makes a user namespace itself. No passwd
 *   entry is needed: Chromium takes HOME from the environment.
 * The environment is puppeteer's (browser-env.ts), already the browser's own.
 */
import { bwrapBind, bwrapDroppingRoot } from '../sandbox/confinement/bwrap-base.js';
import { BrowserExits } from './browser-exits.js';

/** Read-only host paths Chromium needs besides `/usr` (bound when present). */
const CHROMIUM_ETC = [
  '/etc/fonts',
  '/etc/ld.so.cache',
  '/etc/localtime',
  '/etc/alternatives',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/chromium',
  '/etc/chromium.d',
  '/etc/nsswitch.conf',
  '/var/cache/fontconfig',
];

/** Where a jail sees its exits folder. */
export const EXITS_MOUNT = '/run/cia-exits';

/** One browser's jail. */
export interface ChromiumJailSpec {
  bwrap: string;
  /** Uid to drop to inside the jail (the service is root); null keeps the service's own. */
  uid: number | null;
  /** Bound read-write at its host path. */
  profileRoot: string;
  /** The host folder of this browser's exit sockets, bound read-only at `EXITS_MOUNT`. */
  exitsDir: string;
}


/** bubblewrap up to and including its `--`; what follows is the command run inside. */
export function chromiumBwrap(spec: ChromiumJailSpec, etc: string[] = CHROMIUM_ETC): string[] {
  const argv = [spec.bwrap, '--unshare-net', '--unshare-ipc', '--unshare-uts', '--unshare-pid', '--unshare-cgroup-try', '--die-with-parent', '--hostname', 'browser'];
  const made = bwrapDroppingRoot(argv, spec.uid !== null);
  for (const path of etc) bwrapBind(argv, made, '--ro-bind-try', path, path);
  bwrapBind(argv, made, '--bind', spec.profileRoot, spec.profileRoot);
  bwrapBind(argv, made, '--ro-bind', spec.exitsDir, EXITS_MOUNT);
  argv.push('--chdir', '/tmp', '--');
  if (spec.uid !== null) argv.push('/usr/bin/setpriv', `--reuid=${spec.uid}`, `--regid=${spec.uid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--');
  return argv;
}

/**
 * The shell script that runs first inside the jail, as the browser's uid: one socat per exit
 * slot on the jail's loopback (forking a small process per connection; Chromium keeps its proxy
 * connections alive within a context), then Chromium in its place (`$0` is the binary, `$@` its
 * flags). The forwarders get neither the CDP pipe (fds 3 and 4: the browser's end must close when
 * it exits) nor the browser's stdio.
 */
export function forwarderScript(): string {
  const forwarders = BrowserExits.ports().map(
    (port, slot) => `/usr/bin/socat TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${BrowserExits.socket(EXITS_MOUNT, slot)} </dev/null >/dev/null 2>&1 3>&- 4>&- &`,
  );
  return `${forwarders.join('\n')}\nexec "$0" "$@"`;
}
