/**
 * Copies a directory tree (the embedded database's template, ~1,000 files and 40 MB) as real,
 * independent files: PostgreSQL writes its files in place, so a hard link would write into the
 * template. `fs.cp` does the same in 450-560 ms (measured) because it checks and copies one entry
 * at a time; here each directory's entries are copied together, which keeps libuv's pool busy.
 * On a file system that can clone (btrfs, XFS), a file is a copy-on-write clone, still independent.
 */
import { chmod, copyFile, mkdir, readdir, readlink, stat, symlink } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';

/**
 * Copies `src` to `dest`, keeping each file's and directory's mode. As `fs.cp` with `recursive`,
 * a `dest` that exists already (a copy cut short) is written into, its files overwritten.
 */
export async function copyTree(src: string, dest: string): Promise<void> {
  const { mode } = await stat(src);
  await mkdir(dest, { recursive: true });
  const entries = await readdir(src, { withFileTypes: true });
  await Promise.all(
    entries.map(async (e) => {
      const from = join(src, e.name);
      const to = join(dest, e.name);
      if (e.isDirectory()) return copyTree(from, to);
      if (e.isSymbolicLink()) return symlink(await readlink(from), to);
      if (e.isFile()) return copyFile(from, to, constants.COPYFILE_FICLONE);
      throw new Error(`cannot copy ${from}: not a file, directory or link`);
    }),
  );
  // Last, as fs.cp does: the directory's own mode (PostgreSQL wants 0700) may not allow writing into it.
  await chmod(dest, mode & 0o7777);
}
