/**
 * Per-run directories for runs with `commands` (spec §4.8): the install step and the code must
 * share files, so they cannot live on one sandbox's tmpfs. Each run gets a fresh directory owned
 * by its uid, inside a root that is traversable but not listable, and it is deleted afterwards.
 * The root is outside DATA_DIR so no sandbox uid ever needs a path into the service's data.
 * When the service is root the root is a tmpfs of `SANDBOX_RUN_DIR_MB`: what runs write there is
 * bounded in all (and charged to each run's memory cgroup) instead of filling the host disk.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chmod, chown, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { processAlive } from '../processes.js';

const run = promisify(execFile);
const PREFIX = 'code-sandbox-';

interface Root {
  dir: string;
  mounted: boolean;
}

let rootPromise: Promise<Root> | undefined;
/** Run directories handed out and not yet removed, across both engines. */
let activeDirs = 0;

/**
 * Roots left by services that died without closing (the name carries the owner's pid): a tmpfs
 * of theirs would otherwise stay mounted, with whatever their runs wrote, until reboot.
 */
async function sweepStaleRoots(): Promise<void> {
  let names: string[];
  try {
    names = await readdir(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^code-sandbox-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid || processAlive(pid)) continue;
    const dir = join(tmpdir(), name);
    await run('/bin/umount', [dir]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Creates (once per process) the parent of all run directories: mode 0711, a tmpfs when root. */
function runRoot(sizeMb: number): Promise<Root> {
  rootPromise ??= (async () => {
    if (process.geteuid?.() === 0) await sweepStaleRoots();
    const dir = await mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`));
    let mounted = false;
    if (process.geteuid?.() === 0) {
      try {
        await run('/bin/mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0711,nosuid,nodev`, 'code-sandbox', dir]);
        mounted = true;
      } catch {
        // No mount here (a container without the capability): runs write to the host disk.
      }
    }
    await chmod(dir, 0o711);
    return { dir, mounted };
  })();
  return rootPromise;
}

/** A run directory and how to remove it. */
export interface RunDir {
  path: string;
  remove(): Promise<void>;
}

/** Makes a fresh 0700 directory owned by `uid` (when the service can switch uids). */
export async function makeRunDir(uid: number | null, rootSizeMb: number): Promise<RunDir> {
  // Counted before the first await, so a concurrent `removeRunRoot` leaves the root alone.
  activeDirs++;
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    // fs.rm does not follow symlinks, so links planted by the run cannot redirect the delete.
    await rm(path, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
    activeDirs--;
  };
  let path = '';
  try {
    const root = await runRoot(rootSizeMb);
    path = join(root.dir, randomBytes(12).toString('hex'));
    await mkdir(path, { mode: 0o700 });
    if (uid !== null) await chown(path, uid, uid);
  } catch (err) {
    if (path) await remove();
    else activeDirs--;
    throw err;
  }
  return { path, remove };
}

/**
 * Removes the parent of run directories at shutdown, unless a run (of either engine) still uses
 * it. The root is detached first, so a run that starts meanwhile gets a fresh one.
 */
export async function removeRunRoot(): Promise<void> {
  const pending = rootPromise;
  if (!pending || activeDirs > 0) return;
  rootPromise = undefined;
  const root = await pending.catch(() => undefined);
  if (!root) return;
  try {
    if (root.mounted) await run('/bin/umount', [root.dir]);
    await rm(root.dir, { recursive: true, force: true });
  } catch {
    // Busy: the next start's sweep removes it once this process has exited.
  }
}
