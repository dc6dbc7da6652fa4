/**
 * Per-run directories for runs with `commands` (spec §4.8): the install step and the code must
 * share files, so they cannot live on one sandbox's tmpfs. Each run gets a fresh directory owned
 * by its uid, inside a root that is traversable but not listable, and it is deleted afterwards.
 * The root is outside DATA_DIR so no sandbox uid ever needs a path into the service's data.
 */
import { chmod, chown, mkdir, mkdtemp, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

let rootPromise: Promise<string> | undefined;

/** Creates (once per process) the parent of all run directories: mode 0711. */
function runRoot(): Promise<string> {
  rootPromise ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'code-sandbox-'));
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
export async function makeRunDir(uid: number | null): Promise<RunDir> {
  const root = await runRoot();
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
    await rmdir(root);
    if (rootPromise === pending) rootPromise = undefined;
  } catch {
    // Not empty: another engine is still running a `commands` step.
  }
}
