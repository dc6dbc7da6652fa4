/** The README's tables are checked against the code (design: house style 6). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SETTINGS_DOC } from '../core/config.js';
import { ERROR_CODES } from '../core/errors.js';
import { LEGACY_ROUTES } from '../server/v1/legacy-routes.js';
import { configEnv } from '../core/registry/build.js';
import serviceConfig from '../plugins.config.js';

const readme = await readFile(join(import.meta.dirname, '..', 'README.md'), 'utf8');
const tableCell = (text: string) => new RegExp(`^\\|\\s*\`${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\`\\s*\\|`, 'm');

describe('README', () => {
  it('opens with the set-up + start and set-up + test commands', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    assert.match(firstBlock, /bash scripts\/setup\.sh && npm start/);
    assert.match(firstBlock, /bash scripts\/setup\.sh && npm test/);
  });

  it('documents every service setting in the configuration table', () => {
    for (const name of Object.keys(SETTINGS_DOC)) assert.match(readme, tableCell(name), name);
  });

  it('documents every plugin setting of plugins.config.ts', async () => {
    for (const [id, load] of Object.entries(serviceConfig.plugins)) {
      const def = (await load()).default;
      for (const [field, f] of Object.entries(def.config ?? {})) {
        const env = configEnv(id, field, f as never);
        assert.ok(readme.includes(`\`${env}\``), `README lacks ${env}`);
      }
    }
  });

  it('lists every v1 route with its target', () => {
    for (const r of LEGACY_ROUTES) assert.match(readme, new RegExp(`\\| ${r.method} \\| \`${r.path}\` \\| \`${r.target.replace('.', '\\.')}\` \\|`), r.path);
  });

  it('lists every error code with its HTTP status', () => {
    for (const [code, status] of Object.entries(ERROR_CODES)) assert.match(readme, new RegExp(`\\| \`${code}\` \\| ${status} \\|`), code);
  });
});
