/**
 * The part of a confined command line that every jail shares (the sandboxes and the local tools):
 * prlimit's per-process limits, and bubblewrap's namespaces, dropped capabilities and a root
 * that holds only a read-only `/usr` with the usual links, `/proc` and a fresh `/dev`. Each jail
 * adds its own mounts, environment and working folder after it.
 */

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
