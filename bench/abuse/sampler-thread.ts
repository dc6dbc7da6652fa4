/**
 * Worker-thread entry of bench:abuse's memory sampler: its first message is the instance's pid,
 * then `'start'` begins a phase and `'stop'` ends it, answered with what the phase saw (see
 * {@link SamplerReport}). It says `'ready'` once loaded, as the attacker thread does.
 */
import { parentPort } from 'node:worker_threads';
import { MemorySampler, type SamplerReport } from './probes.js';

const port = parentPort!;
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
