/** Service settings: paths handed to other processes are absolute. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isAbsolute, join } from 'node:path';
import { loadSettings } from './config.js';

describe('loadSettings', () => {
  it('makes a relative DATA_DIR absolute against the working directory', () => {
    assert.equal(loadSettings({ DATA_DIR: './data-x' }).dataDir, join(process.cwd(), 'data-x'));
    assert.ok(isAbsolute(loadSettings({}).dataDir));
    assert.equal(loadSettings({ DATA_DIR: '/srv/cia' }).dataDir, '/srv/cia');
  });
});
