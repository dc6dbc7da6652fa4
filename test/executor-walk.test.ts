/**
 * Issue 29, "the walk": `POST /api/v1/get-videosite-transcript` and `POST /api/v2/run` go from their
 * lane into the executor, which runs its stages in one order (admission → hold → run → settle),
 * and no stage leads back to a module the walk has left: no stage imports another stage, the
 * executor or a lane. Read from the import graph (type-only imports count) and the executor's source.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importGraph, reachable } from './helpers/import-graph.js';
import { Executor } from '../core/execution/executor.js';
import { RecordingLedger } from '../core/testing/free-ledger.js';
import { ServiceMetrics } from '../server/metrics/service-metrics.js';
import { observeExecutor } from '../server/metrics/wiring.js';

const root = join(import.meta.dirname, '..');
const graph = importGraph(root, ['core', 'server', 'plugins']);
const EXECUTOR = 'core/execution/executor.ts';
/** The stages in the order a call enters them. */
const STAGES = ['core/execution/admission.ts', 'core/execution/hold.ts', 'core/execution/run.ts', 'core/execution/settle.ts'];

it('both lanes reach the executor, and the executor never reaches a lane', () => {
  for (const lane of ['server/v1/routes.ts', 'server/v2/run.ts']) assert.ok(reachable(graph, lane).has(EXECUTOR), `${lane} does not reach the executor`);
  const back = [...reachable(graph, EXECUTOR)].filter((f) => f.startsWith('server/') || f.startsWith('plugins/'));
  assert.deepEqual(back, [], 'the executor imports nothing of the server or the plugins');
});

it('the executor imports each stage, and no stage leads to another stage or back to the executor', () => {
  for (const stage of STAGES) assert.ok(graph.get(EXECUTOR)!.includes(stage), `executor.ts does not import ${stage}`);
  const problems: string[] = [];
  for (const stage of STAGES) {
    const seen = reachable(graph, stage);
    for (const other of [EXECUTOR, ...STAGES]) if (seen.has(other)) problems.push(`${stage} reaches ${other}`);
  }
  assert.deepEqual(problems, []);
});

it('a paid call enters the stages in order: admit, open the hold, run the providers, settle', () => {
  const source = readFileSync(join(root, EXECUTOR), 'utf8');
  const walk = source.slice(source.indexOf('private async walk('), source.indexOf('\n  }\n', source.indexOf('private async walk(')));
  const at = ['admit(', 'openHold(', '.chain(', 'settle('].map((call) => [call, walk.indexOf(call)] as const);
  for (const [call, i] of at) assert.ok(i > 0, `walk() does not call ${call}`);
  assert.deepEqual(at.map(([c]) => c), [...at].sort((a, b) => a[1] - b[1]).map(([c]) => c));
});

it('metrics subscribe as an observer: execute stays the executor’s own method (test/metrics.test.ts checks what they count)', () => {
  // The registry and engines are not touched until a call runs.
  const executor = new Executor({} as never, new RecordingLedger(), {} as never);
  const undo = observeExecutor(executor, new ServiceMetrics({}));
  assert.equal(Object.hasOwn(executor, 'execute'), false);
  assert.equal(executor.execute, Executor.prototype.execute);
  undo();
});
