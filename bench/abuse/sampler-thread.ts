/**
 * Worker-thread entry of bench:abuse's memory sampler: its first message is the instance's pid,
 * then `'start'` begins a phase and `'stop'` ends it, answered with what the phase saw (see
 * {@link SamplerReport}). It says `'ready'` once loaded, as the attacker thread does.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThisThread } from './thread-nice.js';
import { MemorySampler, type SamplerReport } from './probes.js';

const port = parentPort!;
lowerThisThread((workerData as { nice?: number } | undefined)?.nice ?? 0);
port.once('message', (pid: number) => {
  const sampler = new MemorySampler(pid);
  port.on('message', (m: 'start' | 'stop') => {
    if (m === 'start') return sampler.start();
    sampler.stop();
    port.postMessage(sampler.report() satisfies SamplerReport);
  });
  port.postMessage('started');
});
port.postMessage('ready');
