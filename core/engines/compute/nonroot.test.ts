/**
 * Compute workers' per-key priority in a service run as a plain user (issue 24): without
 * CAP_SYS_NICE a worker thread lowered for a key's further call cannot be raised back. The call
 * that wanted it higher still runs (at the lower value), and the worker is then replaced, so no
 * later call of another key runs at a flood's priority. For real: the pool runs in a child
 * process dropped to user `nobody` without capabilities (this suite runs as root).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const root = process.getuid?.() === 0;

test('without CAP_SYS_NICE a worker left lower serves at most one call below its share, no call fails, and later lone calls run at COMPUTE_NICE', { skip: root && !existsSync('/usr/bin/setpriv') ? 'needs setpriv to drop root' : false }, () => {
  const script = `
    import { createComputeEngine } from ${JSON.stringify(new URL('./index.ts', import.meta.url).href)};
    const silent = { debug() {}, info() {}, warn() {}, error() {} };
    // Defaults otherwise: COMPUTE_NICE 5, COMPUTE_NICE_STEP 3.
    const engine = createComputeEngine({ dataDir: '/tmp', publicBaseUrl: () => '', env: { COMPUTE_WORKERS: '2' }, log: silent });
    const work = engine.register(new URL(${JSON.stringify(new URL('./compute-fixture.ts', import.meta.url).href)}));
    // Calls held at once (each waits 400 ms without CPU): how many levels below the main thread each ran.
    const round = async (owners) => (await Promise.all(owners.map(async (owner) => {
      const seen = await work.run('heldNiceness', 400, { owner });
      return seen.thread - seen.process;
    }))).sort((a, b) => a - b);
    const out = { uid: process.getuid() };
    // Both workers started first, so the calls of each round below run side by side at once.
    await round(['w1', 'w2']);
    out.flood = await round(['a', 'a']);
    out.lone = await round(['b', 'c']);
    out.after = await round(['d', 'e']);
    out.later = await round(['a']);
    const { kills, crashes, workers } = engine.stats();
    out.stats = { kills, crashes, workers };
    await engine.close();
    console.log(JSON.stringify(out));`;
  const node = [process.execPath, '--no-node-snapshot', '--import', 'tsx', '--input-type=module', '-e', script];
  const argv = root ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=-all', ...node] : node;
  const out = JSON.parse(execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8', cwd: new URL('../../..', import.meta.url).pathname, timeout: 60_000 }));
  assert.notEqual(out.uid, 0, 'not root');
  assert.deepEqual(out.flood, [5, 8], "key a's second call at once one step lower (a lowering is allowed)");
  // b takes the worker at 5; c gets the one left at 8, which the kernel refuses to raise.
  assert.deepEqual(out.lone, [5, 8], 'the one call on the lowered worker ran lower (and did not fail)');
  assert.deepEqual(out.after, [5, 5], 'that worker was replaced: later lone calls of other keys at COMPUTE_NICE');
  assert.deepEqual(out.later, [5]);
  assert.deepEqual(out.stats, { kills: 0, crashes: 0, workers: 2 }, 'replaced, not counted as killed or crashed');
});
