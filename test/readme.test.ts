/** The README's tables are checked against the code (design: house style 6). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SETTINGS_DOC } from '../core/config.js';
import { ERROR_CODES } from '../core/errors.js';
import { LEGACY_ROUTES } from '../server/legacy-routes.js';
import { configEnv } from '../core/registry/build.js';
import type { ConfigField } from '../core/plugin/types.js';
import { generatedReadme, shippedPlugins } from '../scripts/readme-tables.js';
import { SHIPPED_PLUGINS } from '../scripts/shipped-plugins.js';

const readme = await readFile(join(import.meta.dirname, '..', 'README.md'), 'utf8');
const tableCell = (text: string) => new RegExp(`^\\|\\s*\`${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\`\\s*\\|`, 'm');

describe('README', () => {
  it('has current generated tables (plugins, plugin settings, v1 routes): `npm run readme` writes them', async () => {
    const { current, wanted } = await generatedReadme(join(import.meta.dirname, '..'));
    assert.ok(current === wanted, 'README.md tables are stale: run `npm run readme` and commit the result.');
  });

  it('opens with the set-up + start and set-up + test commands', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    assert.match(firstBlock, /bash scripts\/setup\.sh && npm start/);
    assert.match(firstBlock, /bash scripts\/setup\.sh && npm test/);
  });

  it('documents every service setting in the configuration table', () => {
    for (const name of Object.keys(SETTINGS_DOC)) assert.match(readme, tableCell(name), name);
  });

  it('documents every plugin setting of the plugins this repository ships', async () => {
    for (const def of await shippedPlugins()) {
      for (const [field, f] of Object.entries(def.config ?? {})) {
        const env = configEnv(def.id, field, f as ConfigField);
        assert.ok(readme.includes(`\`${env}\``), `README lacks ${env}`);
      }
    }
  });

  it('documents every environment variable the engines and plugins read', async () => {
    const root = join(import.meta.dirname, '..');
    // A deployment's own plugin folders are not documented here (issue 28): only what ships.
    const shipped = new Set<string>(SHIPPED_PLUGINS);
    const files = (await readdir(root, { recursive: true })).filter(
      (f) => /^(core|plugins|server)\/.*\.ts$/.test(f) && !f.endsWith('.test.ts') && !f.includes('fake.ts') && (!f.startsWith('plugins/') || shipped.has(f.split('/')[1]!)),
    );
    const read = /env\.([A-Z][A-Z0-9_]+)|env\[['"]([A-Z][A-Z0-9_]+)|\(env, ?['"]([A-Z][A-Z0-9_]+)['"]/g;
    const names = new Set<string>();
    for (const f of files) for (const m of (await readFile(join(root, f), 'utf8')).matchAll(read)) names.add((m[1] ?? m[2] ?? m[3])!);
    names.delete('NODE_ENV');
    // The system's own PATH, handed on to child processes, is no setting of ours.
    names.delete('PATH');
    // Internal: how the sandbox hands the command text to its own child process.
    names.delete('SANDBOX_COMMANDS');
    assert.ok(names.size > 20);
    for (const name of names) assert.ok(readme.includes(`\`${name}\``), `README lacks ${name}`);
  });

  it('lists every v1 route with its target', () => {
    for (const r of LEGACY_ROUTES) assert.match(readme, new RegExp(`\\| ${r.method} \\| \`${r.path}\` \\| \`${r.target.replace('.', '\\.')}\` \\|`), r.path);
  });

  it('lists every shipped plugin in the plugins table, and every shipped plugin has its folder', async () => {
    const folders = new Set((await readdir(join(import.meta.dirname, '..', 'plugins'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name));
    for (const id of SHIPPED_PLUGINS) assert.ok(folders.has(id), `plugins/${id} missing`);
    for (const id of SHIPPED_PLUGINS) assert.match(readme, new RegExp(`^\\| \\[\`${id}\`\\]\\(plugins/${id}/README\\.md\\) \\|`, 'm'), id);
  });

  it('lists every error code with its HTTP status', () => {
    for (const [code, status] of Object.entries(ERROR_CODES)) assert.match(readme, new RegExp(`\\| \`${code}\` \\| ${status} \\|`), code);
  });
});
