/**
 * A second reporter for `npm test` (scripts/run-tests.mjs): one line per test file, its wall-clock
 * seconds and its path, slowest first, so the next session sees which files grow. Node 20 reports
 * a file's own run as a `test:complete` event named after the file (its duration covers the
 * file's process from start to exit); tests inside the file carry the file too, so they are told
 * apart by the name. Plain JavaScript: the runner loads reporters without tsx.
 */
import { relative } from 'node:path';

export default async function* durations(source) {
  const seconds = new Map();
  for await (const event of source) {
    if (event.type !== 'test:complete') continue;
    const { name, file, nesting, details } = event.data;
    if (nesting === 0 && file && name === file) seconds.set(relative(process.cwd(), file), details.duration_ms / 1000);
  }
  const rows = [...seconds].sort((a, b) => b[1] - a[1]);
  for (const [file, s] of rows) yield `${s.toFixed(1).padStart(7)}  ${file}\n`;
}
