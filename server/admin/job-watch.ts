/**
 * `npm run admin -- jobs watch ID`: follows a job until it ends. On a terminal it redraws one
 * progress bar in place; otherwise (a pipe, a log) it prints a line each time the progress moves.
 */

/** The parts of a job view the watcher shows. */
interface Watched {
  status: string;
  progress: { done: number; failed: number; total: number | null };
  creditsCharged: number;
}

const FINAL = new Set(['completed', 'failed', 'cancelled']);
const BAR = 30;

/** One line describing a job's progress; with `bar`, a bar of `#` filled to done/total. */
export function progressLine(j: Watched, bar: boolean): string {
  const { done, failed, total } = j.progress;
  const count = total === null ? `${done + failed}` : `${done + failed}/${total}`;
  let line = `${j.status} ${count} (${failed} failed) ${j.creditsCharged} credits`;
  if (bar && total) {
    const filled = Math.min(BAR, Math.round(((done + failed) / total) * BAR));
    line = `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${line}`;
  }
  return line;
}

/** Polls `read` until the job ends, writing its progress to `out`; answers the final view. */
export async function watchJob(read: () => Promise<Watched>, out: { write(chunk: string): unknown; isTTY?: boolean }, intervalMs = 500): Promise<Watched> {
  const tty = out.isTTY === true;
  let last = '';
  for (;;) {
    const j = await read();
    const line = progressLine(j, tty);
    if (tty) out.write(`\r${line}\x1b[K`);
    else if (line !== last) out.write(`${line}\n`);
    last = line;
    if (FINAL.has(j.status)) {
      if (tty) out.write('\n');
      return j;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
