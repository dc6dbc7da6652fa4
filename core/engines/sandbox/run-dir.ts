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
import { chmod, chown, mkdir, mkdtemp, readdir, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

const run = promisify(execFile);
let rootPromise: Promise<string> | undefined;
let mounted = false;

/** Creates (once per process) the parent of all run directories: mode 0711, a tmpfs when root. */
function runRoot(sizeMb: number): Promise<string> {
  rootPromise ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'code-sandbox-'));
    if (process.geteuid?.() === 0) {
      try {
        await run('/bin/mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0711,nosuid,nodev`, 'code-sandbox', dir]);
        mounted = true;
      } catch {
        // No mount here (a container without the capability): runs write to the host disk.
      }
    }
    await chmod(dir, 0o711);
    return dir;
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
  const root = await runRoot(rootSizeMb);
  const path = join(root, randomBytes(12).toString('hex'));
  await mkdir(path, { mode: 0o700 });
  if (uid !== null) await chown(path, uid, uid);
  return {
    path,
    // fs.rm does not follow symlinks, so links planted by the run cannot redirect the delete.
    remove: () => rm(path, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined),
  };
}

/** Removes the (empty) parent of run directories at shutdown; left alone while runs still use it. */
export async function removeRunRoot(): Promise<void> {
  const pending = rootPromise;
  if (!pending) return;
  const root = await pending.catch(() => undefined);
  if (!root) return;
  try {
    // Not empty: another engine is still running a `commands` step.
    if ((await readdir(root)).length > 0) return;
    if (mounted) {
      await run('/bin/umount', [root]);
      mounted = false;
    }
    await rmdir(root);
    if (rootPromise === pending) rootPromise = undefined;
  } catch {
    // Busy: left for the process's exit.
  }
}
