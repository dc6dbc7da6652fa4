/**
 * The folder a large body's decoded files are written to (issue 24: a flood of bodies of 20
 * base64 images held ~20 MB of decoded bytes each on the serving thread, whose full collections
 * then pushed `/healthz` past 100 ms). The worker that parses the body writes each file field's
 * bytes there (json-work.ts); a handler copies the file it needs to its own scratch folder for
 * its tool, or reads it. The folder is removed once the response is closed (sent, refused, or the
 * caller gone) and the parse has settled, whichever comes last: a parse still running when the
 * caller hangs up would otherwise make it again after it was removed. Its bytes count in the
 * in-flight byte budget as the body that brought them, which is held until that same close
 * (server/hooks/body-limits.ts), and are at most the body's size. Folders an instance left when
 * it died are removed by the next one to start, once the dead one's lease has gone stale.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { rmSync, readdirSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { rm, rmdir, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'cia-body-';
/**
 * This process's name in its folders' names: random, not its pid (two instances sharing the temp
 * dir from different pid namespaces, as containers on one host do, could each see the other's pid
 * as one of their own live or dead processes). One per process, so servers started in one process
 * (tests) never sweep each other's folders.
 */
const INSTANCE = randomBytes(8).toString('hex');
/**
 * An instance keeps `cia-body-<instance>.lease` in the temp dir fresh (its mtime) while it runs:
 * the sweep at start removes folders of an instance whose lease is missing or older than
 * {@link LEASE_STALE_MS}, whatever pid namespace it ran in.
 */
const LEASE_TOUCH_MS = 60_000;
export const LEASE_STALE_MS = 10 * 60_000;
const leases = new Set<string>();

/** The start of this process's body folders' names (tests watch for them). */
export function bodyScratchPrefix(): string {
  return `${PREFIX}${INSTANCE}-`;
}

const leaseFile = (root: string, instance: string) => join(root, `${PREFIX}${instance}.lease`);

/** Writes this process's lease in `root` and keeps it fresh until the process exits (then removes it). */
function holdLease(root: string): void {
  const file = leaseFile(root, INSTANCE);
  if (leases.has(file)) return;
  leases.add(file);
  try {
    writeFileSync(file, '', { mode: 0o600 });
  } catch {
    return;
  }
  const touch = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(file, now, now);
    } catch {
      // Removed by someone: written again, so a sweep elsewhere does not take this instance for dead.
      try {
        writeFileSync(file, '', { mode: 0o600 });
      } catch {
        // The temp dir is not writable: no folder can be made there either.
      }
    }
  }, LEASE_TOUCH_MS);
  touch.unref();
  process.once('exit', () => {
    try {
      unlinkSync(file);
    } catch {
      // Already gone.
    }
  });
}

/** A fresh folder path for one body (not made here: the worker makes it on its first file). */
export function bodyScratchDir(root = tmpdir()): string {
  holdLease(root);
  return join(root, `${bodyScratchPrefix()}${randomUUID()}`);
}

/**
 * Removes `dir` once `res` is closed and `files` has settled: the files the parse wrote there (none:
 * no folder was made), or undefined when that is not known (a parse that failed), for a removal
 * that reads the folder. Known files are unlinked by name: a recursive removal stats and lists
 * everything first, about 4 ms of this thread's time per body of 20 files.
 */
export function removeWhenDone(dir: string, res: ServerResponse | undefined, files: Promise<string[] | undefined>): void {
  const closed = new Promise<void>((resolve) => {
    if (!res || res.closed) return resolve();
    res.once('close', () => resolve());
  });
  void Promise.all([files.catch(() => undefined), closed]).then(async ([names]) => {
    if (names?.length === 0) return;
    try {
      if (!names) throw new Error('files not known');
      await Promise.all(names.map((f) => unlink(f)));
      await rmdir(dir);
    } catch {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  });
}

/** Whether process `pid` is alive (a signal 0 reaches it). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `instance`'s lease in `root` was refreshed within {@link LEASE_STALE_MS}. */
function leaseFresh(root: string, instance: string, now: number): boolean {
  try {
    return now - statSync(leaseFile(root, instance)).mtimeMs < LEASE_STALE_MS;
  } catch {
    return false;
  }
}

/**
 * Removes body folders (and leases) left by instances that died before their responses closed
 * (called at start): an instance's folders go once its lease is missing or stale. Folders named by
 * a pid (instances before the leases) go as before, once no process of that pid is alive here.
 */
export function sweepBodyScratch(root = tmpdir()): void {
  holdLease(root);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const lease = name.endsWith('.lease');
    const owner = lease ? name.slice(PREFIX.length, -'.lease'.length) : name.slice(PREFIX.length).split('-')[0]!;
    if (owner === INSTANCE) continue;
    if (/^\d+$/.test(owner)) {
      if (lease || alive(Number(owner))) continue;
    } else if (!/^[0-9a-f]{16}$/.test(owner) || leaseFresh(root, owner, now)) continue;
    rmSync(join(root, name), { recursive: true, force: true });
  }
}
