/**
 * The files a run leaves in its work directory, read back on the host for `saveOutputFiles`
 * (issue 19, item 2). The directory belongs to the sandbox uid and everything in it was put
 * there by untrusted code, so it is read as hostile: only regular files count (a symlink, FIFO or
 * socket is skipped, and each file is opened with O_NOFOLLOW | O_NONBLOCK and checked again once
 * open), the walk is bounded in depth and entries, and files are read only up to the caps. Read
 * after every process of the run's uid is gone, so nothing changes under the walk.
 */
import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxFile } from '../types.js';

/** Bounds of one collection. */
export interface FileCaps {
  /** Files handed back at most; the rest are counted as omitted. */
  maxFiles: number;
  /** Bytes of all files together. */
  maxBytes: number;
}

const MAX_DEPTH = 8;
const MAX_ENTRIES = 10_000;

/** Size and change time of each regular file, by relative path: what was there before the code ran. */
export type WorkSnapshot = Map<string, string>;

/** Regular files below `dir` (relative paths), with a stamp that changes when the file does. */
export async function snapshotWork(dir: string): Promise<WorkSnapshot> {
  const seen: WorkSnapshot = new Map();
  let entries = 0;
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) return;
    let names;
    try {
      names = await readdir(join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (++entries > MAX_ENTRIES) return;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(path, depth + 1);
      else if (e.isFile()) {
        const st = await lstat(join(dir, path)).catch(() => undefined);
        if (st?.isFile()) seen.set(path, `${st.size}/${st.mtimeMs}/${st.ino}`);
      }
    }
  };
  await walk('', 0);
  return seen;
}

/** A path below the work dir as a name safe to show: each part reduced to `[A-Za-z0-9._-]`, at most 200 characters. */
export function sanitiseName(path: string): string {
  const parts = path.split('/').map((p) => p.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+$/, '_'));
  return parts.join('/').slice(-200);
}

/**
 * The files below `dir` that are new or changed since `before` (all of them without it), in
 * name order, within `caps`; returns them and how many were left out.
 */
export async function collectWorkFiles(dir: string, before: WorkSnapshot | undefined, caps: FileCaps): Promise<{ files: SandboxFile[]; omitted: number }> {
  const now = await snapshotWork(dir);
  const files: SandboxFile[] = [];
  let omitted = 0;
  let bytes = 0;
  for (const [path, stamp] of now) {
    if (before?.get(path) === stamp) continue;
    const data = files.length < caps.maxFiles ? await readRegular(join(dir, path), caps.maxBytes - bytes) : undefined;
    if (!data) {
      omitted++;
      continue;
    }
    bytes += data.length;
    files.push({ name: sanitiseName(path), data });
  }
  return { files, omitted };
}

/** The file's bytes when it is a regular file of at most `room` bytes; undefined otherwise. */
async function readRegular(path: string, room: number): Promise<Uint8Array | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = await handle.stat();
    if (!st.isFile() || st.size > room) return undefined;
    const data = Buffer.alloc(st.size);
    const { bytesRead } = await handle.read(data, 0, st.size, 0);
    return data.subarray(0, bytesRead);
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
