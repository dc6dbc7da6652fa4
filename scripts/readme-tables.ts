/**
 * Writes the generated README tables (plugins, plugin settings, v1 routes) from plugins.config.ts
 * and the v1 table: `npm run readme`. `--check` exits 1 when README.md is stale instead.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import serviceConfig from '../plugins.config.js';
import { LEGACY_ROUTES } from '../server/v1/legacy-routes.js';
import { applyBlocks, pluginsTable, routesTable, settingsTable } from '../core/registry/readme-tables.js';

/** The README as it should be. */
export async function generatedReadme(root: string): Promise<{ current: string; wanted: string }> {
  const plugins = await Promise.all(Object.values(serviceConfig.plugins).map(async (load) => (await load()).default));
  const current = await readFile(join(root, 'README.md'), 'utf8');
  const wanted = applyBlocks(current, [
    { name: 'plugins', markdown: pluginsTable(plugins) },
    { name: 'plugin-settings', markdown: settingsTable(plugins) },
    { name: 'v1-routes', markdown: routesTable(LEGACY_ROUTES) },
  ]);
  return { current, wanted };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = join(import.meta.dirname, '..');
  const { current, wanted } = await generatedReadme(root);
  if (process.argv.includes('--check')) {
    if (current !== wanted) {
      console.error('README.md tables are stale: run `npm run readme`.');
      process.exit(1);
    }
  } else if (current !== wanted) {
    await writeFile(join(root, 'README.md'), wanted);
    console.log('README.md tables updated.');
  } else console.log('README.md tables are up to date.');
}
