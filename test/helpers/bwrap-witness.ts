/**
 * A bubblewrap wrapper for tests through the real server (`TOOLS_BWRAP_BIN`): it appends each
 * command line it is given to a log, then runs the real `/usr/bin/bwrap`, so a test can count the
 * tool runs a call started and see in what order. The folder and log are open to every uid, since
 * the tools run under the pool's own uids.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BwrapWitness {
  /** The wrapper to pass as `TOOLS_BWRAP_BIN`. */
  bin: string;
  /** Tool runs started so far (the engine's one-off probe, which runs `true`, left out). */
  runs(): number;
  /** Removes the wrapper and its log. */
  remove(): void;
}

/** Writes the wrapper in a new temporary folder named after `prefix`. */
export function bwrapWitness(prefix: string): BwrapWitness {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  const log = join(dir, 'runs.log');
  writeFileSync(log, '', { mode: 0o666 });
  chmodSync(log, 0o666);
  const bin = join(dir, 'bwrap');
  writeFileSync(bin, `#!/bin/sh\necho "$*" >> ${log}\nexec /usr/bin/bwrap "$@"\n`, { mode: 0o755 });
  return {
    bin,
    runs: () => readFileSync(log, 'utf8').split('\n').filter((l) => l && !l.endsWith(' /usr/bin/true')).length,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
