/**
 * The memory cap of each LibreOffice worker (issue 24, finding 1: soffice.bin grew to 9.7 GB on
 * one document). Where a memory cgroup can be made (cgroup v2, or v1's memory hierarchy, as
 * root) the worker's whole process tree joins its own group, limited to `OFFICE_MEMORY_MB`, and
 * the kernel's OOM killer ends a conversion that would pass it; elsewhere (or with
 * `OFFICE_MEMORY_CGROUP` false) each process of the worker gets that much address space
 * (`prlimit --as`), so an allocation past it fails instead, which the driver reports as the
 * same memory failure (driver-source.ts) and answers by starting a fresh LibreOffice.
 * CPU is bounded per conversion by its wall-clock limit (`OFFICE_TIMEOUT_MS`): a worker runs one
 * conversion at a time, and an overrun kills it.
 */

/**
 * The worker's argv, prefixed so that it starts inside `group` (a cgroup directory: a shell
 * writes its own pid there, then execs the worker, so nothing of the worker runs outside it),
 * or, with no group, under an address-space limit of `bytes`.
 */
export function withMemoryCap(argv: string[], group: string | undefined, bytes: number, prlimit = '/usr/bin/prlimit'): string[] {
  if (group) return ['/bin/sh', '-c', 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"', 'sh', group, ...argv];
  return [prlimit, `--as=${bytes}`, '--', ...argv];
}
