/**
 * Worker-thread entry of bench:abuse's attacker: it says `'ready'` once loaded (from sources the
 * thread's first message is its own entry, so a plan sent earlier would be taken for it), then its
 * first message is the attack's plan, a later `'stop'` ends it; it answers with the statuses it
 * got, as `[status, count]` pairs.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThisThread } from './thread-nice.js';
import { setMaxListeners } from 'node:events';
import { runAttackPlan, type AttackPlan } from './attacker.js';

const port = parentPort!;
lowerThisThread((workerData as { nice?: number } | undefined)?.nice ?? 0);
const stop = new AbortController();
// Every call of the attack listens to it; thousands of short calls are expected, not a leak.
setMaxListeners(0, stop.signal);
port.once('message', (plan: AttackPlan) => {
  port.on('message', (m) => m === 'stop' && stop.abort());
  void runAttackPlan(plan, stop.signal).then((statuses) => port.postMessage([...statuses]));
});
port.postMessage('ready');
