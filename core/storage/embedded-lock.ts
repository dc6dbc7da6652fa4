/**
 * One process at a time on an embedded database. PGlite keeps no lock of its own across
 * processes, and the service keeps embedded balances in memory: a second server, or the admin
 * CLI, writing the same directory would corrupt it or move credits the running server never
 * sees. The owner writes `<db dir>.lock` (its pid, and once listening its URL); others refuse to
 * open the directory while that process lives. A lock whose process is gone is taken over.
 */
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { processAlive } from '../engines/processes.js';

/** Who holds an embedded database. */
export interface EmbeddedLockInfo {
  pid: number;
  /** Where the holder serves its API (set once it listens). */
  url?: string;
}

/** The embedded database is open in another live process. */
export class EmbeddedInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: EmbeddedLockInfo,
  ) {
    super(`The embedded database ${dir} is in use by process ${holder.pid}${holder.url ? ` (serving ${holder.url})` : ''}; one process at a time may open it.`);
    this.name = 'EmbeddedInUseError';
  }
}

/** Directories this process holds (a second open in the same process is refused too). */
const heldHere = new Set<string>();

function lockPath(dir: string): string {
  return `${dir.replace(/\/+$/, '')}.lock`;
}

function readLock(path: string): EmbeddedLockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as EmbeddedLockInfo;
    return Number.isInteger(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

/** The live process holding `dir`, if any (stale locks and our own count as free). */
export function embeddedHolder(dir: string): EmbeddedLockInfo | undefined {
  const info = readLock(lockPath(dir));
  if (!info || info.pid === process.pid || !processAlive(info.pid)) return undefined;
  return info;
}

/** A held lock. */
export interface EmbeddedLock {
  /** Records the URL the holder serves on, for the admin CLI. */
  advertise(url: string): void;
  release(): void;
}

/** Takes the lock of `dir`; throws {@link EmbeddedInUseError} while another process holds it. */
export function lockEmbedded(dir: string): EmbeddedLock {
  const path = lockPath(dir);
  if (heldHere.has(path)) throw new EmbeddedInUseError(dir, { pid: process.pid });
  for (let attempt = 0; ; attempt++) {
    try {
      // Written whole under a private name, then linked into place: link fails if the lock
      // exists, and nobody ever reads a lock file that is still being written.
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ pid: process.pid } satisfies EmbeddedLockInfo), { mode: 0o600 });
      try {
        linkSync(tmp, path);
      } finally {
        unlinkSync(tmp);
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const holder = embeddedHolder(dir);
      if (holder) throw new EmbeddedInUseError(dir, holder);
      // Left by a process that is gone (or by this pid in an earlier life): take it over.
      unlinkSync(path);
    }
  }
  heldHere.add(path);
  let released = false;
  return {
    advertise(url) {
      if (released) return;
      // Replaced by rename, never rewritten in place: a reader sees the old or the new lock, whole.
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ pid: process.pid, url } satisfies EmbeddedLockInfo), { mode: 0o600 });
      renameSync(tmp, path);
    },
    release() {
      if (released) return;
      released = true;
      heldHere.delete(path);
      if (readLock(path)?.pid === process.pid) {
        try {
          unlinkSync(path);
        } catch {
          /* already gone */
        }
      }
    },
  };
}
