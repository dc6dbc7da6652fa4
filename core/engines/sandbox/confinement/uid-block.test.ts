/** Uid blocks: two claimants never share one; a released or orphaned block is reused. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimUidBlock, UID_BLOCK_SIZE } from './uid-block.js';

describe('claimUidBlock', () => {
  it('hands distinct blocks to concurrent claimants and reuses released and orphaned ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cia-uids-'));
    const a = claimUidBlock(70000, dir);
    const b = claimUidBlock(70000, dir);
    assert.deepEqual([a.base, b.base], [70000, 70000 + UID_BLOCK_SIZE]);
    a.release();
    assert.equal(claimUidBlock(70000, dir).base, 70000);
    // A block whose owner process is gone is taken over.
    const dead = spawnSync('/bin/true').pid!;
    writeFileSync(join(dir, `${70000 + 2 * UID_BLOCK_SIZE}.owner`), String(dead));
    assert.equal(claimUidBlock(70000, dir).base, 70000 + 2 * UID_BLOCK_SIZE);
    // One held by a live process (the test runner's parent) is not.
    writeFileSync(join(dir, `${70000 + 3 * UID_BLOCK_SIZE}.owner`), String(process.ppid));
    assert.equal(claimUidBlock(70000, dir).base, 70000 + 4 * UID_BLOCK_SIZE);
    b.release();
  });
});
