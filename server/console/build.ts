/**
 * `npm run build` step: writes the console bundle to dist/console-assets, where the compiled
 * server serves it from (assets.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BUILT_DIR, bundleConsole } from './assets.js';

const files = await bundleConsole();
await mkdir(BUILT_DIR, { recursive: true });
for (const [name, body] of files) await writeFile(join(BUILT_DIR, name), body);
console.log(`console bundle: ${[...files].map(([n, b]) => `${n} ${b.length} bytes`).join(', ')} → ${BUILT_DIR}`);
