/**
 * The SDK's face (issue 29): `core/sdk.ts` is the kit alone, every runtime name it exports is
 * documented in the README's SDK table, and none of them comes from the capability catalogue,
 * whose names a plugin imports from `core/catalogue.ts`.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as sdk from '../core/sdk.js';
import * as catalogue from '../core/catalogue.js';

const readme = await readFile(join(import.meta.dirname, '..', 'README.md'), 'utf8');
const sdkTable = readme.split('### What the SDK exports')[1]?.split('\n### ')[0] ?? '';

it('the SDK exports no name of the catalogue, and the catalogue none of the SDK', () => {
  const shared = Object.keys(sdk).filter((name) => name in catalogue);
  assert.deepEqual(shared, []);
  assert.equal('catalogue' in sdk, false);
});

it("the README's SDK table names every runtime name core/sdk.ts exports", () => {
  assert.ok(sdkTable.includes('| Purpose | Names |'), 'README lacks the "What the SDK exports" table');
  const missing = Object.keys(sdk).filter((name) => !sdkTable.includes(`\`${name}\``));
  assert.deepEqual(missing, [], 'add these to the table under "What the SDK exports"');
  assert.match(sdkTable, new RegExp(`\\b${Object.keys(sdk).length} runtime names\\b`), 'the count in the text is current');
});
