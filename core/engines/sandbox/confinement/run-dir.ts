/**
 * Per-run directories for runs with `commands` (spec §4.8): the install step and the code must
 * share files, so they cannot live on one sandbox's tmpfs. Each run gets a fresh directory owned
 * by its uid, inside a root that is traversable but not listable, and it is deleted afterwards.
 * The root is outside DATA_DIR so no sandbox uid ever needs a path into the service's data.
 * When the service is root each run directory is a tmpfs of its own, `SANDBOX_RUN_DIR_MB` large:
 * a run that writes too much fills its own directory, never the host disk nor another run's
 * space (its pages are also charged to the run's memory cgroups).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { processAlive } from '../../processes.js';

const run = promisify(execFile);
const PREFIX = 'code-sandbox-';
const asRoot = () => process.geteuid?.() === 0;

let rootPromise: Promise<string> | undefined;
/** Run directories handed out and not yet removed, across both engines. */
let activeDirs = 0;
/** Whether tmpfs mounts work here (a container may lack the capability); learnt on first try. */
let canMount = asRoot();

/** Unmounts every mount at or below `dir`, deepest first. */
async function unmountBelow(dir: string): Promise<void> {
  const mounts = (await readFile('/proc/mounts', 'utf8').catch(() => ''))
    .split('\n')
    .map((line) => line.split(' ')[1]?.replace(/\\040/g, ' '))
    .filter((point): point is string => !!point && (point === dir || point.startsWith(`${dir}/`)))
    .sort((a, b) => b.length - a.length);
  for (const point of mounts) await run('/bin/umount', [point]).catch(() => undefined);
}

/**
 * Roots left by services that died without closing (the name carries the owner's pid): their
 * tmpfs mounts would otherwise stay, with whatever their runs wrote, until reboot.
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
    await unmountBelow(dir);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Creates (once per process) the parent of all run directories, mode 0711. */
function runRoot(): Promise<string> {
  rootPromise ??= (async () => {
    if (asRoot()) await sweepStaleRoots();
    const dir = await mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`));
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

/** Makes a fresh 0700 directory owned by `uid` (when the service can switch uids), a tmpfs of `sizeMb` when root. */
export async function makeRunDir(uid: number | null, sizeMb: number): Promise<RunDir> {
  // Counted before the first await, so a concurrent `removeRunRoot` leaves the root alone.
  activeDirs++;
  let path = '';
  let mounted = false;
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    if (mounted) await run('/bin/umount', [path]).catch(() => undefined);
    // fs.rm does not follow symlinks, so links planted by the run cannot redirect the delete.
    if (path) await rm(path, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
    activeDirs--;
  };
  try {
    const root = await runRoot();
    path = join(root, randomBytes(12).toString('hex'));
    await mkdir(path, { mode: 0o700 });
    if (canMount) {
      try {
        await run('/bin/mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700,nosuid,nodev`, 'code-sandbox', path]);
        mounted = true;
      } catch {
        // No mount here: runs write to the host disk, bounded by their file-size limit only.
        canMount = false;
      }
    }
    if (uid !== null) await chown(path, uid, uid);
  } catch (err) {
    await remove();
    throw err;
  }
  return { path, remove };
}

/**
 * Makes a fresh 0755 directory owned by the service for files every sandbox may read but none may
 * change (the JavaScript worker's bundled module); removed like a run directory.
 */
export async function makeSharedDir(): Promise<RunDir> {
  activeDirs++;
  let path = '';
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    if (path) await rm(path, { recursive: true, force: true }).catch(() => undefined);
    activeDirs--;
  };
  try {
    path = join(await runRoot(), `shared-${randomBytes(6).toString('hex')}`);
    await mkdir(path, { mode: 0o755 });
    await chmod(path, 0o755);
  } catch (err) {
    await remove();
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
  await unmountBelow(root);
  await rm(root, { recursive: true, force: true }).catch(() => undefined);
}
