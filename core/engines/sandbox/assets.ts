/**
 * The sandbox's non-TypeScript files: the code that runs inside the sandboxes (the isolate
 * bootstrap under js/isolate/, python/runner.py, confinement/forwarder.cjs). tsc does not emit
 * them, so the build copies them beside the compiled modules, where the engines look for them:
 * `npm run build` runs `node dist/core/engines/sandbox/assets.js core/engines/sandbox
 * dist/core/engines/sandbox` after tsc.
 */
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Files shipped as they are: JavaScript and Python read by the engines at run time. */
export const ASSET_PATTERN = /\.(js|cjs|py)$/;

/** Every asset below `dir`, as paths relative to it. */
export async function listAssets(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && ASSET_PATTERN.test(e.name)) out.push(relative(dir, join(e.parentPath, e.name)));
  }
  return out.sort();
}

/** Copies every asset of `from` to the same place below `to`; returns the relative paths copied. */
export async function copyAssets(from: string, to: string): Promise<string[]> {
  const files = await listAssets(from);
  for (const f of files) {
    await mkdir(dirname(join(to, f)), { recursive: true });
    await copyFile(join(from, f), join(to, f));
  }
  return files;
}

// `node assets.js <from> <to>`: the build's copy step.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [from, to] = process.argv.slice(2);
  if (!from || !to) {
    console.error('usage: node assets.js <sandbox source dir> <sandbox dist dir>');
    process.exit(2);
  }
  const files = await copyAssets(resolve(from), resolve(to));
  console.log(`sandbox assets: ${files.length} files copied to ${to}`);
}
