/**
 * Entry of a JavaScript sandbox worker process (started by engine.ts with
 * `--no-node-snapshot`). It runs one job at a time, each in a fresh isolated-vm isolate with a
 * memory limit, and prepares the next isolate while idle. If V8 aborts the process (isolated-vm's
 * open bug with growing Maps), only this worker dies; the pool replaces it (issue 6).
 *
 * The isolate and its host callbacks are made in isolate.ts; here the run is driven to its
 * end, and the output and error the isolate hands back are cut again to the caps before they
 * leave the process (issue 6 audit, item 2).
 */
import type ivm from 'isolated-vm';
import type { ExecutionErrorInfo, SandboxResult } from '../types.js';
import type { RunMessage, ToWorker } from './protocol.js';
import { NODE_BUILTINS, builtinMessage, missingPackageMessage, runtimeSource } from './runtime.js';
import { pendingFetches, prepare, send, type Prepared, type RunState } from './isolate.js';
import { ModuleError, classify, cleanStack } from './errors.js';
import { ERROR_FIELD_MAX_BYTES, capError, capResult } from '../output.js';

const PREFIX = '(async () => {';
const SUFFIX = '\n})().then(() => "", (e) => __sandboxDescribe(e))';

let prepared: Promise<Prepared> | undefined;
// argv: memoryMb maxLines maxBytes isolateDir (where the bootstrap's files are, see worker-process.ts).
const argv = process.argv.slice(2);
/** The isolate bootstrap, read once per worker process. */
const bootstrap = runtimeSource(argv[3] ?? '');
/** The pool's default heap limit: the next isolate is made with it, whatever the last run asked for. */
const defaultMemoryMb = Number(argv[0]) || 0;

/** Runs one job to its end; never throws. */
async function run(msg: RunMessage): Promise<SandboxResult> {
  const key = `${msg.memoryMb}/${msg.maxLines}/${msg.maxBytes}`;
  let p: Prepared;
  const ready = prepared ? await prepared.catch(() => undefined) : undefined;
  prepared = undefined;
  if (ready && ready.key === key) p = ready;
  else {
    ready?.isolate.dispose();
    p = await prepare(bootstrap, msg.memoryMb, msg.maxLines, msg.maxBytes);
  }
  const started = performance.now();
  let timedOut = false;
  let finish: () => void = () => undefined;
  const idle = new Promise<void>((resolve) => (finish = resolve));
  const st: RunState = {
    timers: new Map(),
    fetches: 0,
    fids: new Set(),
    firing: 0,
    deadline: Date.now() + msg.timeoutMs,
    id: msg.id,
    check() {
      if (st.uncaught || st.failure || (st.timers.size === 0 && st.fetches === 0 && st.firing === 0)) finish();
      st.probe?.();
    },
  };
  p.state.current = st;
  const killer = setTimeout(() => {
    timedOut = true;
    finish();
    if (!p.isolate.isDisposed) p.isolate.dispose();
  }, msg.timeoutMs);
  let error: ExecutionErrorInfo | undefined;
  let out: { stdout?: unknown; stderr?: unknown; dropped: [number, number] } = { dropped: [0, 0] };
  try {
    let started: () => void = () => undefined;
    const main = runMain(p, msg, () => started());
    const first = await Promise.race([main.then((e) => ({ e })), unsettled(p, st, main, (go) => (started = go))]);
    st.probe = undefined;
    if (first === 'unsettled') {
      st.uncaught ??= JSON.stringify({
        name: 'Error',
        value: 'Detected unsettled top-level await: the code waits for a promise that nothing left (no timer, no fetch) can settle.',
        traceback: '',
      });
    } else if (first.e) st.uncaught ??= first.e;
    // Let callbacks the isolate queued (timers, fetches) reach the host before judging idleness.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    st.check();
    await idle;
    if (timedOut) throw new Error('timed out');
    if (st.failure) throw st.failure;
    const taken: unknown = await p.take.apply(undefined, [], { timeout: 2000, result: { copy: true } });
    const t = (taken && typeof taken === 'object' ? taken : {}) as Record<string, unknown>;
    const dropped = Array.isArray(t.dropped) ? t.dropped : [];
    out = { stdout: t.stdout, stderr: t.stderr, dropped: [Number(dropped[0]) || 0, Number(dropped[1]) || 0] };
    const uncaught = st.uncaught ?? (typeof t.uncaught === 'string' ? t.uncaught : undefined);
    if (uncaught) error = readError(uncaught);
  } catch (err) {
    error = classify(err, timedOut, msg, p.isolate.isDisposed);
  } finally {
    clearTimeout(killer);
    for (const t of st.timers.values()) clearTimeout(t);
    // Answers the pool may still send for this run's fetches have nobody to go to.
    for (const fid of st.fids) pendingFetches.delete(fid);
    p.state.current = undefined;
    if (!p.isolate.isDisposed) p.isolate.dispose();
  }
  const wrapperLine = msg.bundle === undefined ? msg.code.split('\n').length + 1 : -1;
  // The isolate's output and error are only what the code left them to be: cut them again here.
  return capResult(
    {
      stdout: out.stdout,
      stderr: out.stderr,
      durationMs: performance.now() - started,
      error: error && { ...error, traceback: cleanStack(String(error.traceback).slice(0, 4 * ERROR_FIELD_MAX_BYTES), wrapperLine) },
    },
    { maxLines: msg.maxLines, maxBytes: msg.maxBytes },
    out.dropped,
  );
}

/** The error JSON the isolate reported, capped; anything unreadable becomes a plain error. */
function readError(raw: string): ExecutionErrorInfo {
  try {
    return capError(JSON.parse(raw));
  } catch {
    return { name: 'Error', value: 'The code threw a value the sandbox could not describe.', traceback: '' };
  }
}

/**
 * Resolves 'unsettled' when the main code is still pending although no timer, fetch or callback
 * is left that could settle it (Node exits with code 13 there; waiting would only burn the run's
 * 10 seconds). A no-op call into the isolate first lets its current task and microtasks finish.
 */
function unsettled(p: Prepared, st: RunState, main: Promise<unknown>, onStart: (go: () => void) => void): Promise<'unsettled'> {
  let settled = false;
  main.then(
    () => (settled = true),
    () => (settled = true),
  );
  const busy = () => settled || st.timers.size > 0 || st.fetches > 0 || st.firing > 0;
  return new Promise((resolve) => {
    let probing = false;
    st.probe = () => {
      if (probing || busy()) return;
      probing = true;
      p.fire
        .apply(undefined, [0], { timeout: Math.max(1, st.deadline - Date.now()) })
        .then(async () => {
          await new Promise((r) => setImmediate(r));
          await new Promise((r) => setImmediate(r));
          if (!busy()) resolve('unsettled');
        })
        .catch(() => undefined)
        .finally(() => {
          probing = false;
        });
    };
    // Probe only once the main code is queued in the isolate, so the probe runs after it.
    onStart(() => st.probe?.());
  });
}

/** Compiles and runs the code (or bundle); returns the error JSON the wrapper reported, if any. */
async function runMain(p: Prepared, msg: RunMessage, started: () => void): Promise<string | undefined> {
  if (msg.bundle === undefined) {
    let script: ivm.Script | undefined;
    try {
      script = await p.isolate.compileScript(PREFIX + msg.code + SUFFIX, { filename: 'main.js', columnOffset: -PREFIX.length });
    } catch (err) {
      if (!isModuleSyntax(err)) throw err;
    }
    if (script) {
      const running = script.run(p.context, { promise: true, copy: true, timeout: msg.timeoutMs });
      started();
      const r = await running;
      return typeof r === 'string' && r !== '' ? r : undefined;
    }
  }
  const mod = await p.isolate.compileModule(msg.bundle ?? msg.code, { filename: 'main.js' });
  await mod.instantiate(p.context, (specifier) => {
    const bare = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
    const builtin = specifier.startsWith('node:') || NODE_BUILTINS.includes(bare.split('/')[0]!);
    throw new ModuleError(builtin ? builtinMessage(bare) : missingPackageMessage(specifier));
  });
  const evaluating = mod.evaluate({ promise: true, timeout: msg.timeoutMs });
  started();
  await evaluating;
  return undefined;
}

function isModuleSyntax(err: unknown): boolean {
  const m = err instanceof Error ? err.message : '';
  return /Cannot use import statement outside a module|Unexpected token 'export'|Cannot use 'import\.meta' outside a module/.test(m);
}

process.on('message', (raw: ToWorker) => {
  if (raw.t === 'fetch-result') {
    const done = pendingFetches.get(raw.fid);
    pendingFetches.delete(raw.fid);
    done?.(raw.res);
    return;
  }
  if (raw.t === 'run') {
    void run(raw)
      .catch((err: unknown): SandboxResult => ({
        stdout: [],
        stderr: [],
        truncated: false,
        durationMs: 0,
        error: { name: 'SandboxError', value: 'The sandbox could not start the run.', traceback: err instanceof Error ? err.message : String(err) },
      }))
      .then((result) => {
        send({ t: 'done', id: raw.id, result });
        prepared = prepare(bootstrap, defaultMemoryMb || raw.memoryMb, raw.maxLines, raw.maxBytes);
        prepared.catch(() => undefined);
      });
  }
});
process.on('unhandledRejection', () => undefined);
// Warm the first isolate with the pool's defaults.
{
  const [mem, lines, bytes] = argv.slice(0, 3).map(Number);
  if (mem && lines && bytes) {
    prepared = prepare(bootstrap, mem, lines, bytes);
    prepared.catch(() => undefined);
  }
}
process.on('disconnect', () => process.exit(0));
send({ t: 'ready' });
