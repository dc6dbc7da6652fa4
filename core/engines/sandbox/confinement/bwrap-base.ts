/**
 * The part of a confined command line that every jail shares (the sandboxes and the local tools):
 * prlimit's per-process limits, and bubblewrap's namespaces, dropped capabilities and a root
 * that holds only a read-only `/usr` with the usual links, `/proc` and a fresh `/dev`. Each jail
 * adds its own mounts, environment and working folder after it.
 */
import { dirname } from 'node:path';

/** Per-process limits passed to prlimit. */
export interface ProcessLimits {
  fsizeBytes: number;
  nofile: number;
  cpuSeconds: number;
  nproc?: number;
  asBytes?: number;
}

/** `prlimit … --` for `l`. */
export function prlimitArgs(l: ProcessLimits): string[] {
  const args = ['/usr/bin/prlimit', `--fsize=${l.fsizeBytes}`, `--nofile=${l.nofile}`, `--cpu=${l.cpuSeconds}`, '--core=0'];
  if (l.nproc !== undefined) args.push(`--nproc=${l.nproc}`);
  if (l.asBytes !== undefined) args.push(`--as=${l.asBytes}`);
  args.push('--');
  return args;
}

/** bubblewrap up to and including `--dev /dev`: every namespace (network included), no capabilities, `/usr` read-only. */
export function bwrapBase(bwrapBin: string, hostname: string): string[] {
  return [
    bwrapBin,
    '--unshare-all',
    '--unshare-user',
    // No nested user namespaces: they are the usual door to kernel code paths root-only otherwise.
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop', 'ALL',
    '--hostname', hostname,
    '--ro-bind', '/usr', '/usr',
    '--symlink', 'usr/lib', '/lib',
    '--symlink', 'usr/lib64', '/lib64',
    '--symlink', 'usr/bin', '/bin',
    '--symlink', 'usr/sbin', '/sbin',
    '--proc', '/proc',
    '--dev', '/dev',
  ];
}

/**
 * Adds a bind to `argv`, first making each missing parent of its destination 0755: bwrap would
 * make them 0700 root, which a jail's own uid could not pass through. `made` holds the
 * directories that already exist in the jail (and gains the ones made here).
 */
export function bwrapBind(argv: string[], made: Set<string>, how: '--bind' | '--ro-bind' | '--ro-bind-try', src: string, dest: string): void {
  const missing: string[] = [];
  for (let d = dirname(dest); !made.has(d) && d !== '/'; d = dirname(d)) missing.unshift(d);
  for (const d of missing) {
    argv.push('--perms', '0755', '--dir', d);
    made.add(d);
  }
  argv.push(how, src, dest);
}

/**
 * The root a jail that drops to its own uid inside starts from: no capabilities but the three
 * that drop needs (SETUID, SETGID, and SETPCAP to empty the bounding set; all gone with the uid),
 * a read-only `/usr` with the usual links, `/proc`, a fresh `/dev` and a sticky world-writable
 * `/tmp` the uid can write. Answers the directories that now exist, for {@link bwrapBind}.
 */
export function bwrapDroppingRoot(argv: string[], dropsUid: boolean): Set<string> {
  argv.push('--cap-drop', 'ALL');
  if (dropsUid) argv.push('--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_SETPCAP');
  argv.push('--ro-bind', '/usr', '/usr');
  for (const dir of ['lib', 'lib64', 'bin', 'sbin']) argv.push('--symlink', `usr/${dir}`, `/${dir}`);
  argv.push('--proc', '/proc', '--dev', '/dev', '--perms', '1777', '--tmpfs', '/tmp');
  return new Set(['/', '/tmp', '/usr', '/proc', '/dev']);
}
