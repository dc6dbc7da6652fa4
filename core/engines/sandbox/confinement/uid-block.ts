/**
 * Host-wide uid blocks. Sandboxes run as uids from SANDBOX_UID_BASE on, and a run is ended by
 * killing every process of its uid; two service processes on one host (instances, test runs)
 * using the same uids would kill each other's runs. Each sandbox engine therefore claims a
 * block of its own (owner files under the system temp dir, taken over when their process is
 * gone) and takes its uids from that block only.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../../processes.js';

/** Uids per block: Python slots at +0, `commands` at +1000, JavaScript workers at +2000. */
export const UID_BLOCK_SIZE = 4000;
const MAX_BLOCKS = 64;

/** A claimed block: its first uid. */
export interface UidBlock {
  readonly base: number;
  release(): void;
}

/** Owner files claimed by this process, so a released block is free again at once. */
const heldHere = new Set<string>();

function ownerPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    if (Number.isInteger(pid) && pid > 0) return pid;
    // Empty: its owner is between creating and writing it (give it a few seconds).
    return Date.now() - statSync(file).mtimeMs < 5000 ? -1 : undefined;
  } catch {
    return undefined;
  }
}

/** Claims the first free block from `configuredBase` on. */
export function claimUidBlock(configuredBase: number, dir = join(tmpdir(), 'cia-sandbox-uids')): UidBlock {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  for (let i = 0; i < MAX_BLOCKS; i++) {
    const base = configuredBase + i * UID_BLOCK_SIZE;
    const file = join(dir, `${base}.owner`);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(file, String(process.pid), { flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = ownerPid(file);
        const stale = pid === undefined || (pid === process.pid ? !heldHere.has(file) : pid > 0 && !processAlive(pid));
        if (!stale) break;
        rmSync(file, { force: true });
        continue;
      }
      heldHere.add(file);
      let released = false;
      return {
        base,
        release() {
          if (released) return;
          released = true;
          heldHere.delete(file);
          if (ownerPid(file) === process.pid) rmSync(file, { force: true });
        },
      };
    }
  }
  throw new Error(`no free sandbox uid block from ${configuredBase} (${MAX_BLOCKS} blocks of ${UID_BLOCK_SIZE} are held by live processes)`);
}

/**
 * The settings an engine runs with: as root, the uid base moved to a block claimed for it alone
 * (released with `block.release()` when the engine closes); otherwise unchanged.
 */
export function withOwnUids<S extends { uidBase: number }>(settings: S, asRoot: boolean): { settings: S; block: UidBlock | undefined } {
  if (!asRoot) return { settings, block: undefined };
  const block = claimUidBlock(settings.uidBase);
  return { settings: { ...settings, uidBase: block.base }, block };
}
