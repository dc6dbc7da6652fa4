/**
 * The directories a LibreOffice worker may write (its profile and its job directory) and the
 * hand-over of files through them (issue 18, finding 7). When workers run under a uid of their
 * own, those directories belong to that uid, and everything the service (root) does in them
 * assumes a hostile owner: nothing is followed through a symbolic link, and the output is only
 * taken from a regular file the worker itself wrote.
 */
import { chmodSync, constants, lchownSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** Gives a tree to `uid` without following links (children first, so a chowned top means done). */
function chownTree(dir: string, uid: number, depth = 0): void {
  if (depth < 64) {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      // A Dirent of a symbolic link is never a directory: links are re-owned, not entered.
      if (entry.isDirectory()) chownTree(path, uid, depth + 1);
      else lchownSync(path, uid, uid);
    }
  }
  lchownSync(dir, uid, uid);
}

/**
 * Makes `dir` (mode 0700) and hands it to `uid` (null: left to the service's own uid). A profile
 * kept from an earlier run under another uid block is re-owned as a whole.
 */
export function ownDir(dir: string, uid: number | null): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (uid !== null && st.uid !== uid) chownTree(dir, uid);
  chmodSync(dir, 0o700);
}

/**
 * Empties `dir` but keeps it: the jail has it bound by inode, so a new directory of the same
 * name would not be the one the worker sees.
 */
export function clearDir(dir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries) rmSync(join(dir, name), { recursive: true, force: true });
}

/**
 * Moves a staged input into the (emptied) job directory under `name`; synchronous, so handing
 * a job to a free worker still cannot race with that worker dying. Readable by the worker's uid
 * through the directory it owns (the file keeps mode 0644).
 */
export function placeInput(staged: string, jobDir: string, name: string): void {
  clearDir(jobDir);
  renameSync(staged, join(jobDir, name));
  chmodSync(join(jobDir, name), 0o644);
}

/**
 * Reads the output the worker wrote: a regular file, not a link, and (when the worker has its own
 * uid) owned by that uid with one link, so a worker cannot hand back a host file it planted a
 * link or hard link to. Undefined when there is no such file.
 */
export async function readOutput(file: string, uid: number | null): Promise<Uint8Array | undefined> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO planted under the name must not hang the open.
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile() || (uid !== null && (st.uid !== uid || st.nlink !== 1))) return undefined;
    const data = await handle.readFile();
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  } finally {
    await handle.close();
  }
}
