/** A settlement aborted by PostgreSQL as a deadlock victim is run again; other errors are not. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { retryOnConflict } from './sql-ledger.js';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe('retryOnConflict', () => {
  it('runs a statement again after a deadlock or serialisation failure', async () => {
    const codes = ['40P01', '40001'];
    let calls = 0;
    const out = await retryOnConflict(async () => {
      const code = codes[calls++];
      if (code) throw pgError(code);
      return 'settled';
    });
    assert.equal(out, 'settled');
    assert.equal(calls, 3);
  });

  it('gives up after the last attempt and passes other errors through at once', async () => {
    let calls = 0;
    await assert.rejects(retryOnConflict(async () => { calls++; throw pgError('40P01'); }, 3), /40P01/);
    assert.equal(calls, 3);
    calls = 0;
    await assert.rejects(retryOnConflict(async () => { calls++; throw pgError('23514'); }), /23514/);
    assert.equal(calls, 1);
  });
});
