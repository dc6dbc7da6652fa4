/** For tests: the JavaScript sandbox's worker processes this process started, found in /proc. */
import { readdir, readFile } from 'node:fs/promises';
import { descendsFrom } from '../../processes.js';

/** Pids of Node worker processes started by this process (directly or through bubblewrap). */
export async function workerPids(): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = (await readFile(`/proc/${name}/cmdline`, 'utf8')).split('\0');
      if (!/(^|\/)node$/.test(argv[0]!) || !argv.some((a) => a.includes('js-worker'))) continue;
      if (descendsFrom(Number(name), process.pid)) pids.push(Number(name));
    } catch {
      // Gone while we looked.
    }
  }
  return pids;
}
