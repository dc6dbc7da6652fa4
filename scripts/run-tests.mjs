/**
 * The test runner of `npm test` (scripts/test.sh): Node's own runner through `run()`, started with
 * the files in the order given. `node --test a b c` does not keep that order: Node 20 sorts the
 * files it is given (so a longest-first list made no difference), while `run({ files })` starts
 * them as listed. Each file still runs in its own process, with this process's flags (tsx,
 * --test-timeout), as under `node --test`.
 *
 * Usage: node --no-node-snapshot --import tsx --test-timeout=N scripts/run-tests.mjs
 *          <concurrency> <durations file> <file>...
 * Reports as `node --test` would: the usual reporter on stdout (spec on a terminal, TAP otherwise)
 * and scripts/durations-reporter.mjs into the durations file. Exit code 1 when a test failed.
 * Plain JavaScript: it runs before anything is compiled.
 */
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import durations from './durations-reporter.mjs';

const [concurrencyArg, durationsFile, ...files] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
if (!Number.isInteger(concurrency) || concurrency < 1 || !durationsFile || files.length === 0) {
  console.error('usage: run-tests.mjs <concurrency> <durations file> <file>...');
  process.exit(2);
}

// The --test-timeout this process was started with reaches each file's process with the other flags
// (its tests' default timeout) and bounds each file as a whole here, as under `node --test`.
const timeoutFlag = process.execArgv.find((a) => a.startsWith('--test-timeout='));
const timeout = timeoutFlag ? Number(timeoutFlag.slice('--test-timeout='.length)) : Infinity;
const events = run({ files: files.map((f) => resolve(f)), concurrency, timeout });
// One stream of events, two reporters: each reads its own copy.
const toStdout = new PassThrough({ objectMode: true });
const toDurations = new PassThrough({ objectMode: true });
events.on('data', (event) => {
  toStdout.write(event);
  toDurations.write(event);
});
events.on('end', () => {
  toStdout.end();
  toDurations.end();
});
// As `node --test` does: a failed test (not a todo) fails the run.
events.on('test:fail', (data) => {
  if (data.todo === undefined || data.todo === false) process.exitCode = 1;
});
toStdout.compose(process.stdout.isTTY ? new spec() : tap).pipe(process.stdout);
toDurations.compose(durations).pipe(createWriteStream(durationsFile));
