/**
 * The admin CLI (`npm run admin`) for tests: as a real process, or in this process through
 * `runCli` with the same arguments, environment and captured output. A process costs seconds of
 * CPU (tsx compiling the CLI's imports, then the store's boot), so the tests run most commands
 * in-process and keep a few real processes for what only a process shows (argv, exit code, the
 * streams it writes).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runCli } from '../../server/admin/cli-run.js';

/** What a command printed. */
export interface CliOutput {
  stdout: string;
  stderr: string;
}

/** A command that exited non-zero: rejected with its exit code and output, as `execFile` does. */
export class CliFailed extends Error implements CliOutput {
  constructor(
    readonly code: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`admin CLI exited with ${code}: ${stderr}`);
  }
}

const exec = promisify(execFile);

/** `node server/admin/cli.ts …` in a child process with exactly `env` (plus PATH). */
export const cliProcess = (env: Record<string, string>, ...args: string[]): Promise<CliOutput> =>
  exec(process.execPath, ['--no-node-snapshot', '--import', 'tsx', 'server/admin/cli.ts', ...args], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: { PATH: process.env.PATH, ...env },
  });

/** The same command in this process, with exactly `env` (plus PATH). */
export async function cliInProcess(env: Record<string, string>, ...args: string[]): Promise<CliOutput> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { PATH: process.env.PATH, ...env },
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  });
  if (code !== 0) throw new CliFailed(code, stdout, stderr);
  return { stdout, stderr };
}
