/**
 * The folder a large body's decoded files are written to (issue 24: a flood of bodies of 20
 * base64 images held ~20 MB of decoded bytes each on the serving thread, whose full collections
 * then pushed `/healthz` past 100 ms). The worker that parses the body writes each file field's
 * bytes there (json-work.ts); a handler copies the file it needs to its own scratch folder for
 * its tool, or reads it. The folder is removed once the response is closed (sent, refused, or the
 * caller gone) and the parse has settled, whichever comes last: a parse still running when the
 * caller hangs up would otherwise make it again after it was removed. Its bytes count in the
 * in-flight byte budget as the body that brought them, which is held until that same close
 * (server/hooks/body-limits.ts), and are at most the body's size.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { rmSync, readdirSync } from 'node:fs';
import { rm, rmdir, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'cia-body-';

/** A fresh folder path for one body (not made here: the worker makes it on its first file). */
export function bodyScratchDir(root = tmpdir()): string {
  return join(root, `${PREFIX}${process.pid}-${randomUUID()}`);
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

/** Removes body folders left by an instance that died before its responses closed (called at start). */
export function sweepBodyScratch(root = tmpdir()): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split('-')[0]);
    if (pid === process.pid || !Number.isInteger(pid) || alive(pid)) continue;
    rmSync(join(root, name), { recursive: true, force: true });
  }
}
