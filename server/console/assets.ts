/**
 * The console's browser bundle (issue 26): JavaScript and CSS built by esbuild from `console/`.
 * `npm run build` writes it to `dist/console-assets` (build.ts); a process started from the
 * sources (dev, tests) builds it in memory once, on first use, so a clean clone needs no step.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { retriedOnce } from '../../core/util/retried-once.js';

/** One served file, with its gzip form and an ETag. */
export interface Asset {
  body: Buffer;
  gzip: Buffer;
  type: string;
  etag: string;
}

/** Bundle names the console page loads. */
export const ASSET_NAMES = ['app.js', 'app.css'] as const;

const TYPES: Record<string, string> = { 'app.js': 'text/javascript; charset=utf-8', 'app.css': 'text/css; charset=utf-8' };

/** Where `npm run build` puts the bundle: beside the compiled server (dist/console-assets). */
export const BUILT_DIR = join(import.meta.dirname, '..', '..', 'console-assets');

/** The console's source entry, from the sources or from dist/server/console. */
export function consoleEntry(): string {
  for (const up of [['..', '..'], ['..', '..', '..']]) {
    const p = join(import.meta.dirname, ...up, 'console', 'main.tsx');
    if (existsSync(p)) return p;
  }
  throw new Error('console sources (console/main.tsx) not found');
}

/** Bundles the console; returns the output files by name. */
export async function bundleConsole(): Promise<Map<string, Buffer>> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: { app: consoleEntry() },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    write: false,
    outdir: '/console-out',
    logLevel: 'silent',
  });
  const files = new Map<string, Buffer>();
  for (const f of out.outputFiles) files.set(f.path.split('/').pop()!, Buffer.from(f.contents));
  return files;
}

function asset(name: string, body: Buffer): Asset {
  return { body, gzip: gzipSync(body, { level: 9 }), type: TYPES[name]!, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** The bundle: the built files when present, else built now (once per process; a failed build is tried again). */
export const consoleAssets: () => Promise<Map<string, Asset>> = retriedOnce(async () => {
  let files: Map<string, Buffer>;
  if (ASSET_NAMES.every((n) => existsSync(join(BUILT_DIR, n)))) {
    files = new Map(await Promise.all(ASSET_NAMES.map(async (n) => [n, await readFile(join(BUILT_DIR, n))] as const)));
  } else files = await bundleConsole();
  return new Map(ASSET_NAMES.map((n) => [n, asset(n, files.get(n) ?? Buffer.alloc(0))]));
});
