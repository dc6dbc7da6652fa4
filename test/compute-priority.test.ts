/**
 * Issue 24, fair gates for the compute workers (task `fair`): a key's further calls running at
 * once in the compute pool (large request bodies parsed off the serving thread, pages parsed) run
 * lower than its first (`COMPUTE_NICE_STEP` per call), so one key's flood sinks below the serving
 * thread and below another key's single call; a lone call runs at `COMPUTE_NICE` again once the
 * flood's calls have ended, on whichever worker takes it. Through the real server, by an endpoint
 * of a deployment's own plugin whose work reports the nice value of the thread that runs it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Type, defineEndpoint, definePlugin, flat, type ComputeWork } from '../core/sdk.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import type * as Fixture from '../core/engines/compute/compute-fixture.js';

/** Holds a compute worker for `ms` and answers how many nice levels below the serving thread it ran. */
const probe = definePlugin<{ work: ComputeWork<typeof Fixture> }>({
  id: 'probe_compute',
  apiVersion: 1,
  title: 'Compute probe',
  summary: 'Reports the priority its compute work ran at.',
  setup: ({ engines }) => ({ work: engines.compute.register<typeof Fixture>(new URL('../core/engines/compute/compute-fixture.js', import.meta.url)) }),
  endpoints: [
    defineEndpoint({
      operation: 'hold',
      title: 'Hold',
      summary: 'Holds a compute worker.',
      input: Type.Object({ ms: Type.Integer({ minimum: 0, maximum: 5000, description: 'How long.' }) }),
      output: Type.Object({ below: Type.Integer({ description: 'Nice levels below the serving thread.' }) }),
      cost: flat(1),
      async run(input, ctx) {
        const seen = await ctx.state.work.run('heldNiceness', input.ms, { owner: ctx.caller, signal: ctx.signal });
        return { below: seen.thread - seen.process };
      },
    }),
  ],
});

let s: TestServer;
before(async () => {
  const config = pluginsConfig(['locations']);
  config.plugins.probe_compute = async () => ({ default: probe });
  // Three workers: a key's two calls and another key's one run side by side. Defaults otherwise
  // (COMPUTE_NICE 5, COMPUTE_NICE_STEP 3).
  s = await startServer({ env: { COMPUTE_WORKERS: '3' }, serviceConfig: config });
});
after(() => s?.close());

/** The levels below the serving thread at which one call of `key` ran. */
async function hold(key: string, ms: number): Promise<number> {
  const r = await s.call('POST', '/api/v2/run', { key, body: { type: 'endpoint', id: 'probe_compute.hold', input: { ms } } });
  assert.equal(r.status, 200, r.text);
  return r.json.data.below as number;
}

test('a key’s second compute call at once runs COMPUTE_NICE_STEP lower than its first and than another key’s only call; lone calls are back at COMPUTE_NICE after', async () => {
  const [a, b, c] = await Promise.all([s.createKey({ credits: 100 }), s.createKey({ credits: 100 }), s.createKey({ credits: 100 })]);
  // Long enough for the three calls to overlap, short enough to keep the file cheap.
  const flood = await Promise.all([hold(a.key, 1500), hold(a.key, 1500), hold(b.key, 1500)]);
  assert.deepEqual([flood.slice(0, 2).sort((x, y) => x - y), flood[2]], [[5, 8], 5], 'key a: 5 then 8; key b alone: 5');

  // Every worker idle again, one of them left at 8: three keys' lone calls at once take all
  // three workers, that one included, and each runs at the base.
  assert.deepEqual(await Promise.all([hold(a.key, 300), hold(b.key, 300), hold(c.key, 300)]), [5, 5, 5]);
  // A key whose flood has ended is a newcomer again.
  assert.equal(await hold(a.key, 0), 5);
});
