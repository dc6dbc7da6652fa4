/**
 * `npm run new-provider -- <id> --capability <capability> [--root <dir>]` (issue 29): writes
 * `plugins/<id>/` (index, client, fake on the fake kit, test on the provider fault suite, README)
 * serving one capability of the catalogue, and adds its line to `plugins.config.ts`. The folder
 * passes its own test as written. It refuses a bad id, an id already taken and an unknown
 * capability before writing anything. `--root` writes into another tree laid out like this
 * repository (its `plugins/` and `plugins.config.ts`), which is how the scaffold's own test runs
 * it without touching the real ones.
 */
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { catalogue } from '../core/catalogue.js';
import { isSnakeId } from '../core/plugin/ids.js';
import { planProvider, type ProviderPlan } from './new-provider-plan.js';
import { clientFile, indexFile } from './new-provider-code.js';
import { fakeFile, testFile } from './new-provider-fake.js';
import { readmeFile } from './new-provider-readme.js';

const USAGE = 'usage: npm run new-provider -- <id> --capability <capability> [--root <dir>]';

/** A refusal: printed without a stack, exit code 1. */
export class ScaffoldRefusal extends Error {}

/** What the command line asked for. */
export interface ScaffoldArgs {
  id: string;
  capability: string;
  root: string;
}

const knownCapabilities = () => `Known capabilities: ${catalogue.map((c) => c.id).join(', ')}.`;

/** Reads `<id> --capability <c> [--root <dir>]` (also `--capability=<c>`). */
export function parseArgs(argv: string[], defaultRoot: string): ScaffoldArgs {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const m = /^--(capability|root)(?:=(.*))?$/.exec(arg);
    if (m) {
      const value = m[2] ?? argv[++i];
      if (value === undefined) throw new ScaffoldRefusal(`--${m[1]} needs a value.\n${USAGE}`);
      flags[m[1]!] = value;
    } else if (arg.startsWith('--')) throw new ScaffoldRefusal(`Unknown option ${arg}.\n${USAGE}`);
    else positional.push(arg);
  }
  if (positional.length !== 1) throw new ScaffoldRefusal(`Give exactly one provider id.\n${USAGE}`);
  if (!flags.capability) throw new ScaffoldRefusal(`Name the capability it serves with --capability.\n${USAGE}\n${knownCapabilities()}`);
  // npm runs scripts from the package folder; a relative --root means the caller's folder (INIT_CWD).
  return { id: positional[0]!, capability: flags.capability, root: flags.root ? resolve(process.env.INIT_CWD ?? process.cwd(), flags.root) : defaultRoot };
}

const exists = (path: string) => access(path).then(() => true, () => false);

/** `plugins.config.ts` with the plugin's line added at the end of its `plugins` list. */
export function withConfigLine(config: string, id: string): string {
  const lines = config.split('\n');
  const start = lines.findIndex((l) => /^\s*plugins:\s*\{\s*$/.test(l));
  const indent = start >= 0 ? /^\s*/.exec(lines[start]!)![0] : '';
  const end = start < 0 ? -1 : lines.findIndex((l, i) => i > start && l.startsWith(`${indent}}`));
  if (end < 0) throw new ScaffoldRefusal('plugins.config.ts has no `plugins: { … }` block to add the line to; add it by hand.');
  lines.splice(end, 0, `${indent}  ${id}: () => import('./plugins/${id}/index.js'),`);
  return lines.join('\n');
}

/** Checks the request and derives the plan; throws a {@link ScaffoldRefusal} before anything is written. */
export async function checkRequest(args: ScaffoldArgs): Promise<{ plan: ProviderPlan; config: string }> {
  const { id, root } = args;
  if (!isSnakeId(id)) throw new ScaffoldRefusal(`'${id}' is not a valid provider id: snake_case, starting with a letter (letters, digits, single underscores), at most 64 characters, e.g. 'weather_a'.`);
  const configPath = join(root, 'plugins.config.ts');
  const config = await readFile(configPath, 'utf8').catch(() => {
    throw new ScaffoldRefusal(`${configPath} not found: run it from the repository, or give --root.`);
  });
  if (await exists(join(root, 'plugins', id))) throw new ScaffoldRefusal(`plugins/${id} already exists: choose another id.`);
  if (new RegExp(`^\\s*${id}\\s*:`, 'm').test(config) || catalogue.some((c) => c.id === id)) throw new ScaffoldRefusal(`'${id}' is already taken in plugins.config.ts or the catalogue: choose another id.`);
  const cap = catalogue.find((c) => c.id === args.capability);
  if (!cap) throw new ScaffoldRefusal(`Unknown capability '${args.capability}'. ${knownCapabilities()}`);
  let plan: ProviderPlan;
  try {
    plan = planProvider(id, cap);
  } catch (err) {
    throw new ScaffoldRefusal(`Cannot derive a provider of '${cap.id}': ${(err as Error).message}.`);
  }
  return { plan, config: withConfigLine(config, id) };
}

/** Writes the folder and the config line; returns the paths written, relative to the root. */
export async function scaffold(args: ScaffoldArgs): Promise<string[]> {
  const { plan, config } = await checkRequest(args);
  const dir = join(args.root, 'plugins', plan.id);
  const files: [string, string][] = [
    ['index.ts', indexFile(plan)],
    ['client.ts', clientFile(plan)],
    ['fake.ts', fakeFile(plan)],
    [`${plan.id}.test.ts`, testFile(plan)],
    ['README.md', readmeFile(plan)],
  ];
  // Not recursive: a folder that appeared since the check is not overwritten.
  await mkdir(dir);
  try {
    for (const [name, text] of files) await writeFile(join(dir, name), text);
    await writeFile(join(args.root, 'plugins.config.ts'), config);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return [...files.map(([name]) => relative(args.root, join(dir, name))), 'plugins.config.ts'];
}

/** Where the command writes what it says. */
export interface ScaffoldIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

/**
 * The command on `argv` (defaulting to this repository as the root): answers its exit code, 1 with
 * the refusal on `stderr` when it refuses. Anything else (a bug, a full disk) is thrown.
 */
export async function runNewProvider(argv: string[], io: ScaffoldIo): Promise<number> {
  try {
    const args = parseArgs(argv, join(import.meta.dirname, '..'));
    const written = await scaffold(args);
    io.stdout.write(`Wrote ${written.join(', ')}.\n`);
    io.stdout.write(`Next: node --no-node-snapshot --import tsx --test plugins/${args.id}/${args.id}.test.ts, then fill in what plugins/${args.id}/README.md lists.\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof ScaffoldRefusal)) throw err;
    io.stderr.write(`${err.message}\n`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await runNewProvider(process.argv.slice(2), process);
