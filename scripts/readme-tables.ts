/**
 * Writes the generated README tables (plugins, plugin settings, v1 routes) from the plugins this
 * repository ships and the v1 table: `npm run readme`. `--check` exits 1 when README.md is stale
 * instead. A deployment's own plugins are not the README's business: the instance serves their
 * settings at `GET /settings-reference`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PluginDef } from '../core/plugin/types.js';
import { SHIPPED_PLUGINS } from './shipped-plugins.js';
import { LEGACY_ROUTES } from '../server/legacy-routes.js';
import { applyBlocks, pluginsTable, routesTable, settingsTable } from '../core/registry/readme-tables.js';

/** The shipped plugins' definitions, loaded from their folders (not from the deployment's list). */
export async function shippedPlugins(): Promise<PluginDef<any, any>[]> {
  return Promise.all(SHIPPED_PLUGINS.map(async (id) => ((await import(`../plugins/${id}/index.js`)) as { default: PluginDef<any, any> }).default));
}

/** The README as it should be. */
export async function generatedReadme(root: string): Promise<{ current: string; wanted: string }> {
  const plugins = await shippedPlugins();
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
