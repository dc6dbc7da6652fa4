/**
 * One worker process of the JavaScript pool as the pool sees it (engine.ts): the process, its uid
 * and cgroup, the run it serves, and what it printed to stderr (what a crash is judged by).
 */
import type { ChildProcess } from 'node:child_process';
import type { SandboxResult } from '../types.js';
import type { SandboxSettings } from '../settings.js';
import type { SandboxCgroups } from '../confinement/cgroup.js';
import { canSwitchUid } from '../confinement/os-sandbox.js';
import type { RunFetches } from './fetch-bridge.js';
import type { RunPriority } from '../run-priority.js';
import type { FromWorker, RunMessage } from './protocol.js';
import { launchWorker, workerMemoryBytes, type WorkerFiles } from './worker-process.js';

/** A run waiting for, or served by, a worker. */
export interface Job extends RunFetches {
  msg: RunMessage;
  /** The API key the run is for ('' when the caller names none). */
  owner: string;
  resolve(r: SandboxResult): void;
  /** Counts the run for its owner while a worker serves it (CODE_NICE_STEP). */
  priority?: RunPriority;
}

/** A worker process and its state. */
export interface Worker {
  child: ChildProcess;
  /** Its place in the uid range: 0.. for the regular workers, from `jsWorkers` on for surge ones. */
  index: number;
  /** Started for a key waiting below its fair share; stops once idle with nobody waiting. */
  surge: boolean;
  uid: number | null;
  cgroup?: string;
  ready: boolean;
  /** Said ready once: a worker killed later (recycled, overran) is no start failure. */
  started: boolean;
  /** Runs served; at `jsRecycleAfter` the worker is replaced. */
  runs: number;
  job?: Job;
  backstop?: NodeJS.Timeout;
  backstopFired?: boolean;
  killedOnPurpose?: boolean;
  stderrTail: string;
  /** Stderr since the current run started: what a crash of this run is judged by. */
  runStderr: string;
  /** The cgroup's OOM kill count when the current run started. */
  oomsAtStart: number;
  /** Killing the worker and sweeping its uid; a successor starts once this is done. */
  killing?: Promise<void>;
  /** The nice value the worker was started at or last moved to (run-priority.ts). */
  nice: number;
  /** In a session of its own (bubblewrap): its session's scheduling group moves with it. */
  ownSession: boolean;
  /** A move up for its run was refused (no CAP_SYS_NICE): it is retired when that run ends. */
  raiseRefused?: boolean;
}

/** What the pool hears from a worker. */
export interface WorkerEvents {
  message(w: Worker, m: FromWorker): void;
  exit(w: Worker, code: number | null, signal: NodeJS.Signals | null): void;
  error(err: Error): void;
}

/**
 * Starts worker `index` (its uid is the JS range's base + index, its cgroup that uid's) and wires
 * its events; stderr is kept, the last 4000 characters overall and of the current run.
 */
export function startPoolWorker(o: { settings: SandboxSettings; files: WorkerFiles; cgroups: SandboxCgroups; index: number; surge: boolean }, on: WorkerEvents): Worker {
  const s = o.settings;
  const uid = canSwitchUid() ? s.uidBase + 2000 + o.index : null;
  const cgroup = o.cgroups.prepare(uid, workerMemoryBytes(s), 'code', 128);
  const child = launchWorker({ settings: s, files: o.files, uid, cgroup });
  // Forked without bubblewrap, a worker shares the service's session and starts at its priority.
  const ownSession = o.files.bundle !== undefined;
  const w: Worker = {
    child, index: o.index, surge: o.surge, uid, cgroup, ready: false, started: false, runs: 0, stderrTail: '', runStderr: '', oomsAtStart: 0,
    nice: ownSession ? s.nice : 0, ownSession,
  };
  child.stderr?.on('data', (d: Buffer) => {
    const text = d.toString('utf8');
    w.stderrTail = (w.stderrTail + text).slice(-4000);
    if (w.job) w.runStderr = (w.runStderr + text).slice(-4000);
  });
  child.on('message', (m: FromWorker) => on.message(w, m));
  child.on('error', (err) => on.error(err));
  child.on('exit', (code, signal) => on.exit(w, code, signal));
  return w;
}
