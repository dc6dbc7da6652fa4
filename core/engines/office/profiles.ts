/**
 * Profile directories of the LibreOffice workers. Each worker needs a profile no other
 * LibreOffice uses: a second soffice on a busy profile hands its work to the first and exits.
 * Several service instances may share one data directory (multi-instance deployments), so a
 * worker claims a profile slot with an owner file (`profile-N.owner`: pid and pool token) and
 * only ever kills processes on a profile it owns, whose previous owner is gone.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../processes.js';

/** Owner files claimed by pools of this process, so a closed pool's slots can be reused. */
const heldHere = new Set<string>();

/** Claims the first free slot from `preferred` on (stepping by `step`); returns its profile directory. */
export function claimProfile(root: string, preferred: number, step: number, token: string): string {
  for (let slot = preferred; slot < preferred + step * 64; slot += step) {
    const dir = join(root, `profile-${slot}`);
    const owner = `${dir}.owner`;
    const mine = `${process.pid} ${token}`;
    try {
      writeFileSync(owner, mine, { flag: 'wx' });
      heldHere.add(owner);
      return dir;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let pid = 0;
    try {
      pid = Number(readFileSync(owner, 'utf8').split(' ')[0]);
    } catch {
      continue;
    }
    const stale = pid === process.pid ? !heldHere.has(owner) : !processAlive(pid);
    if (!stale) continue;
    // The owner is gone: take the slot over and clear what it left running.
    writeFileSync(owner, mine);
    heldHere.add(owner);
    killStale(dir);
    return dir;
  }
  throw new Error(`no free LibreOffice profile slot under ${root}`);
}

/** Gives a slot back (pool closed). */
export function releaseProfile(dir: string): void {
  const owner = `${dir}.owner`;
  heldHere.delete(owner);
  rmSync(owner, { force: true });
}

/** Kills LibreOffice processes still running on `profileDir` (left by a service that was killed). */
export function killStale(profileDir: string): void {
  const marker = `-env:UserInstallation=file://${profileDir}`;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (args.includes(marker)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      /* exited meanwhile or not ours to read */
    }
  }
}
