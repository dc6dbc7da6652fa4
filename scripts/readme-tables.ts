/**
 * Writes the generated README tables (plugins, plugin settings, v1 routes) and the capability
 * reference (`docs/capabilities.md`) from the plugins this repository ships, the provider order of
 * `plugins.config.ts` and the v1 table: `npm run readme`. `--check` exits 1 when either is stale
 * instead. A deployment's own plugins are not the README's business: the instance serves their
 * settings at `GET /settings-reference`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PluginDef } from '../core/plugin/types.js';
import { SHIPPED_PLUGINS } from './shipped-plugins.js';
import { LEGACY_ROUTES } from '../server/legacy-routes.js';
import { applyBlocks, pluginsTable, routesTable, settingsTable } from '../core/registry/readme-tables.js';
import serviceConfig from '../plugins.config.js';
import { capabilityReference, REFERENCE_PATH } from './capability-reference.js';

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

/** The capability reference as it should be, and as committed ('' when missing). */
export async function generatedReference(root: string): Promise<{ current: string; wanted: string }> {
  const current = await readFile(join(root, REFERENCE_PATH), 'utf8').catch(() => '');
  const wanted = await capabilityReference(await shippedPlugins(), serviceConfig.providerOrder ?? {}, LEGACY_ROUTES);
  return { current, wanted };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = join(import.meta.dirname, '..');
  const files = [
    { path: 'README.md', what: 'README.md tables', ...(await generatedReadme(root)) },
    { path: REFERENCE_PATH, what: REFERENCE_PATH, ...(await generatedReference(root)) },
  ];
  const stale = files.filter((f) => f.current !== f.wanted);
  if (process.argv.includes('--check')) {
    for (const f of stale) console.error(`${f.what} is stale: run \`npm run readme\`.`);
    if (stale.length) process.exit(1);
  } else {
    for (const f of stale) {
      await mkdir(dirname(join(root, f.path)), { recursive: true });
      await writeFile(join(root, f.path), f.wanted);
      console.log(`${f.what} updated.`);
    }
    if (!stale.length) console.log('README.md tables and the capability reference are up to date.');
  }
}
