/**
 * Test support for the LibreOffice priority tests: converts one document per owner at once and
 * watches, in /proc, the priority each worker's soffice.bin has while that worker is busy, so a
 * test sees what every conversion really ran at (a job that waits for a restarted worker runs
 * later than the others, so one look at a single moment would miss it).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { priorityOf } from '../tools/priority.js';
import type { OfficeEngine } from './types.js';

const read = (p: string) => readFileSync(p, 'utf8');

/** What a round of conversions ran at, and what it answered. */
export interface RoundSeen {
  /** Distinct nice values of busy workers' soffice.bin, sorted. */
  nice: number[];
  /** Distinct nice values of their session groups (null: no autogroup here), sorted. */
  group: (number | null)[];
  /** How many conversions answered a PDF. */
  pdfs: number;
}

/** The soffice.bin running on `profileDir`, found by its command line. */
export function sofficeOn(profileDir: string): number | undefined {
  const marker = `-env:UserInstallation=file://${profileDir}`;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (read(`/proc/${p}/comm`).trim() === 'soffice.bin' && read(`/proc/${p}/cmdline`).split('\0').includes(marker)) return Number(p);
    } catch {
      // Gone while read.
    }
  }
  return undefined;
}

/** Whether `pid` is still a process on `profileDir`. */
function isOn(pid: number, profileDir: string): boolean {
  try {
    return read(`/proc/${pid}/comm`).trim() === 'soffice.bin' && read(`/proc/${pid}/cmdline`).split('\0').includes(`-env:UserInstallation=file://${profileDir}`);
  } catch {
    return false;
  }
}

/**
 * Converts `doc` once per owner, all at once, on a pool whose work dir is `workDir` (worker i on
 * `profile-i`: a fresh work dir), sampling every few milliseconds until all have answered.
 */
export async function niceWhileConverting(office: OfficeEngine, workDir: string, owners: string[], doc: { data: Uint8Array; extension: string }): Promise<RoundSeen> {
  const nice = new Set<number>();
  const group = new Set<number | null>();
  const pids = new Map<number, number>();
  const sample = () => {
    for (const w of office.stats().workers) {
      if (w.state !== 'busy') continue;
      const profile = join(workDir, `profile-${w.index}`);
      let pid = pids.get(w.index);
      // A restarted worker has a new soffice.bin: looked up again once the known one is not it.
      if (pid === undefined || !isOn(pid, profile)) pid = sofficeOn(profile);
      if (pid === undefined) continue;
      pids.set(w.index, pid);
      const seen = priorityOf(pid, read);
      if (!seen) continue;
      nice.add(seen.nice);
      group.add(seen.group);
    }
  };
  const timer = setInterval(sample, 5);
  try {
    const results = await Promise.all(owners.map((owner) => office.convert(doc, { owner })));
    return {
      nice: [...nice].sort((a, b) => a - b),
      group: [...group].sort((a, b) => (a ?? -1) - (b ?? -1)),
      pdfs: results.filter((r) => Buffer.from(r.pdf.subarray(0, 5)).toString('latin1') === '%PDF-').length,
    };
  } finally {
    clearInterval(timer);
  }
}
