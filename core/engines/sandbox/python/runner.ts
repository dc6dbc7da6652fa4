/**
 * The command line of a Python sandbox: the interpreter in isolated mode running runner.py (the
 * small program that waits for the code on stdin, runs it and reports the error object on fd 3)
 * with its limits and the host's error-field cap as arguments. runner.py is real Python, compiled
 * by runner.test.ts and copied beside this module by the build (see ../assets.ts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_FIELD_MAX_BYTES, FIELD_TRUNCATED_NOTE } from '../output.js';

/** Where runner.py lives: beside this module, in the sources and in dist alike. */
export const RUNNER_PATH = fileURLToPath(new URL('./runner.py', import.meta.url));

let source: string | undefined;

/** The runner's source, read once (it is passed with `-c`, so no file is bound into the sandbox). */
export function runnerSource(): string {
  source ??= readFileSync(RUNNER_PATH, 'utf8');
  return source;
}

/** Limits the runner sets as hard rlimits before it reads any code. */
export interface RunnerLimits {
  /** Processes and threads (RLIMIT_NPROC). */
  nproc: number;
  /** Address space in bytes (RLIMIT_AS). */
  asBytes: number;
  /** Largest file in bytes (RLIMIT_FSIZE). */
  fsizeBytes: number;
  /** Open files (RLIMIT_NOFILE). */
  nofile: number;
  /** CPU seconds (RLIMIT_CPU). */
  cpuSeconds: number;
}

/** The argv of one Python sandbox: `python3 -I -c <runner.py> <limits…> <field cap> <note>`. */
export function runnerArgv(pythonBin: string, l: RunnerLimits): string[] {
  return [
    pythonBin,
    '-I',
    '-c',
    runnerSource(),
    String(l.nproc),
    String(l.asBytes),
    String(l.fsizeBytes),
    String(l.nofile),
    String(l.cpuSeconds),
    String(ERROR_FIELD_MAX_BYTES),
    FIELD_TRUNCATED_NOTE,
  ];
}
