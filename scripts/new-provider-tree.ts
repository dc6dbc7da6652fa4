/**
 * A scratch tree laid out like the repository, for running the scaffold without touching the real
 * `plugins/` and `plugins.config.ts` (issue 29): its own copy of plugins.config.ts, package.json and
 * tsconfig.json and its own plugins/ (the shipped plugins linked in), with core/ and node_modules
 * linked. The scaffold's test and `npm run check:new-provider` both write into one.
 */
import { execFile } from 'node:child_process';
import { cp, lstat, mkdir, mkdtemp, readdir, rm, symlink, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The repository this file belongs to. */
export const REPO = join(import.meta.dirname, '..');

/** A scratch tree: its root, and the links to remove before the rest. */
export interface ScratchTree {
  root: string;
  links: string[];
}

/** What a command printed and how it ended. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command; never throws for a non-zero exit. */
export function runIn(cwd: string, command: string, args: string[]): Promise<Ran> {
  return new Promise((done) => {
    // Without NODE_TEST_CONTEXT a nested `node --test` reports as a run of its own (TAP), not to a surrounding runner.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    execFile(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Runs one test file of `root` with the repository's runner flags. */
export const runTestFile = (file: string) => runIn(REPO, process.execPath, ['--no-node-snapshot', '--import', 'tsx', '--test', file]);

/** Makes a scratch tree under the system's temporary folder. */
export async function scratchTree(): Promise<ScratchTree> {
  const root = await mkdtemp(join(tmpdir(), 'cia-new-provider-'));
  const links: string[] = [];
  const link = async (target: string, path: string) => {
    await symlink(target, path);
    links.push(path);
  };
  await mkdir(join(root, 'plugins'));
  for (const name of ['core', 'node_modules']) await link(join(REPO, name), join(root, name));
  for (const d of await readdir(join(REPO, 'plugins'), { withFileTypes: true })) if (d.isDirectory()) await link(join(REPO, 'plugins', d.name), join(root, 'plugins', d.name));
  for (const file of ['plugins.config.ts', 'package.json', 'tsconfig.json']) await cp(join(REPO, file), join(root, file));
  return { root, links };
}

/** Removes the tree: its links first (so nothing they point to can be reached), then the rest. */
export async function removeTree(tree: ScratchTree): Promise<void> {
  for (const path of tree.links) if ((await lstat(path).catch(() => undefined))?.isSymbolicLink()) await unlink(path);
  await rm(tree.root, { recursive: true, force: true });
}
