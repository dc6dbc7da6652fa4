/** lowerHelperThreads: every thread but the caller moved down to the caller's level + n, never raised. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lowerHelperThreads } from './helper-threads.js';

test('moves the other threads down to the serving thread’s level plus n, leaves lower ones and the caller alone, ignores refusals', { skip: process.platform !== 'linux' }, async () => {
  const main = process.pid;
  const nice = new Map<number, number>([[main, 2], [main + 1, 2], [main + 2, 12], [main + 3, 0], [main + 4, 0]]);
  const set = (tid: number, n: number) => {
    if (tid === main + 4) throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
    nice.set(tid, n);
  };
  const get = (tid: number) => nice.get(tid === 0 ? main : tid)!;
  const moved = await lowerHelperThreads(5, set, get, () => [...nice.keys()].map(String));
  assert.equal(moved, 2);
  assert.deepEqual([...nice.values()], [2, 7, 12, 7, 0]);
  assert.equal(await lowerHelperThreads(0, set, get, () => [...nice.keys()].map(String)), 0);
});
