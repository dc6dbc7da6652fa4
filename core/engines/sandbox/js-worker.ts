/**
 * Entry of a JavaScript sandbox worker process (forked by js-sandbox.ts with
 * `--no-node-snapshot`). It runs one job at a time, each in a fresh isolated-vm isolate with a
 * memory limit, and prepares the next isolate while idle. If V8 aborts the process (isolated-vm's
 * open bug with growing Maps), only this worker dies; the pool replaces it (issue 6).
 */
import { randomBytes } from 'node:crypto';
import ivm from 'isolated-vm';
import type { ExecutionErrorInfo, SandboxResult } from './types.js';
import type { FromWorker, RunMessage, ToWorker } from './js-protocol.js';
import { RUNTIME_SOURCE, NODE_BUILTINS, builtinMessage, missingPackageMessage } from './js-runtime.js';

const PREFIX = '(async () => {';
const SUFFIX = '\n})().then(() => "", (e) => __sandboxDescribe(e))';

/** Per-run host state the isolate's callbacks act on. */
interface RunState {
  timers: Map<number, NodeJS.Timeout>;
  fetches: number;
  firing: number;
  uncaught?: string;
  failure?: unknown;
  deadline: number;
  id: number;
  check(): void;
  /** Set while the main code is pending: looks for an await nothing can settle any more. */
  probe?: () => void;
}

interface Prepared {
  isolate: ivm.Isolate;
  context: ivm.Context;
  fire: ivm.Reference<(id: number) => string>;
  take: ivm.Reference<() => string>;
  key: string;
  state: { current?: RunState };
}

const send = (m: FromWorker) => process.send?.(m);
const pendingFetches = new Map<number, (res: string) => void>();
let nextFetch = 1;
let prepared: Promise<Prepared> | undefined;

async function prepare(memoryMb: number, maxLines: number, maxBytes: number): Promise<Prepared> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
  const context = await isolate.createContext();
  const holder: Prepared['state'] = {};
  const timer = new ivm.Callback((id: number, ms: number) => arm(holder, fireRef, id, ms));
  const clear = new ivm.Callback((id: number) => {
    const st = holder.current;
    const t = st?.timers.get(id);
    if (t && st) {
      clearTimeout(t);
      st.timers.delete(id);
      st.check();
    }
  });
  // A fetch is two one-way calls: the isolate gets an id now, and the host calls `fetchDone`
  // with the answer later, so only strings and numbers ever cross the boundary.
  const fetchCb = new ivm.Callback((req: string) => {
    const fid = nextFetch++;
    const st = holder.current;
    if (!st) {
      setImmediate(() => void doneRef.apply(undefined, [fid, JSON.stringify({ error: 'fetch is not available now' })]).catch(() => undefined));
      return fid;
    }
    st.fetches++;
    pendingFetches.set(fid, (res) => {
      st.firing++;
      doneRef
        .apply(undefined, [fid, res], { timeout: Math.max(1, st.deadline - Date.now()) })
        .then((r) => {
          if (typeof r === 'string' && r.startsWith('E')) st.uncaught ??= r.slice(1);
        })
        .catch((err: unknown) => {
          st.failure ??= err;
        })
        .finally(() => {
          st.fetches--;
          st.firing--;
          st.check();
        });
    });
    send({ t: 'fetch', id: st.id, fid, req });
    return fid;
  });
  const random = new ivm.Callback((n: number) => randomBytes(Math.max(0, Math.min(65536, n | 0))).toString('hex'));
  // WHATWG URL parsing by the host's parser; only strings cross, JSON comes back ('' = invalid).
  const url = new ivm.Callback((input: string, base?: string, field?: string, value?: string) => {
    try {
      const u = new URL(input, base);
      if (field) (u as unknown as Record<string, string>)[field] = value ?? '';
      const { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } = u;
      return JSON.stringify({ href, origin, protocol, username, password, host, hostname, port, pathname, search, hash });
    } catch {
      return '';
    }
  });
  const rt = (await context.evalClosure(RUNTIME_SOURCE, [timer, clear, fetchCb, random, url, maxLines, maxBytes], {
    result: { reference: true },
  })) as ivm.Reference<{ fire: (id: number) => string; take: () => string; fetchDone: (fid: number, res: string) => string }>;
  const fireRef = (await rt.get('fire', { reference: true })) as ivm.Reference<(id: number) => string>;
  const take = (await rt.get('take', { reference: true })) as ivm.Reference<() => string>;
  const doneRef = (await rt.get('fetchDone', { reference: true })) as ivm.Reference<(fid: number, res: string) => string>;
  rt.release();
  return { isolate, context, fire: fireRef, take, key: `${memoryMb}/${maxLines}/${maxBytes}`, state: holder };
}

function arm(holder: Prepared['state'], fire: ivm.Reference<(id: number) => string>, id: number, ms: number): void {
  const st = holder.current;
  if (!st) return;
  const handle = setTimeout(() => {
    st.timers.delete(id);
    st.firing++;
    const remaining = Math.max(1, st.deadline - Date.now());
    fire
      .apply(undefined, [id], { timeout: remaining })
      .then((r) => {
        if (typeof r === 'string' && r.startsWith('E')) st.uncaught ??= r.slice(1);
        else if (typeof r === 'string' && r.startsWith('R')) arm(holder, fire, id, Number(r.slice(1)));
      })
      .catch((err: unknown) => {
        st.failure ??= err;
      })
      .finally(() => {
        st.firing--;
        st.check();
      });
  }, ms);
  st.timers.set(id, handle);
}

/** Runs one job to its end; never throws. */
async function run(msg: RunMessage): Promise<SandboxResult> {
  const key = `${msg.memoryMb}/${msg.maxLines}/${msg.maxBytes}`;
  let p: Prepared;
  const ready = prepared ? await prepared.catch(() => undefined) : undefined;
  prepared = undefined;
  if (ready && ready.key === key) p = ready;
  else {
    ready?.isolate.dispose();
    p = await prepare(msg.memoryMb, msg.maxLines, msg.maxBytes);
  }
  const started = performance.now();
  let timedOut = false;
  let finish: () => void = () => undefined;
  const idle = new Promise<void>((resolve) => (finish = resolve));
  const st: RunState = {
    timers: new Map(),
    fetches: 0,
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
  let out = { stdout: [] as string[], stderr: [] as string[], dropped: [0, 0], uncaught: null as string | null };
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
    out = JSON.parse((await p.take.apply(undefined, [], { timeout: 2000 })) as string);
    const uncaught = st.uncaught ?? out.uncaught;
    if (uncaught) error = JSON.parse(uncaught) as ExecutionErrorInfo;
  } catch (err) {
    error = classify(err, timedOut, msg);
  } finally {
    clearTimeout(killer);
    for (const t of st.timers.values()) clearTimeout(t);
    p.state.current = undefined;
    if (!p.isolate.isDisposed) p.isolate.dispose();
  }
  const note = (n: number) => `[output truncated: the stream is limited to ${msg.maxLines} lines and ${msg.maxBytes} characters]`;
  const truncated = out.dropped[0]! > 0 || out.dropped[1]! > 0;
  if (out.dropped[0]! > 0) out.stdout.push(note(0));
  if (out.dropped[1]! > 0) out.stderr.push(note(1));
  const result: SandboxResult = { stdout: out.stdout, stderr: out.stderr, truncated, durationMs: performance.now() - started };
  if (error) result.error = { ...error, traceback: cleanStack(error.traceback, msg.bundle === undefined ? msg.code.split('\n').length + 1 : -1) };
  return result;
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

class ModuleError extends Error {
  override name = 'Error';
}

function isModuleSyntax(err: unknown): boolean {
  const m = err instanceof Error ? err.message : '';
  return /Cannot use import statement outside a module|Unexpected token 'export'|Cannot use 'import\.meta' outside a module/.test(m);
}

/** Maps host-side failures (termination, memory, compile errors) to the error object. */
function classify(err: unknown, timedOut: boolean, msg: RunMessage): ExecutionErrorInfo {
  const e = err instanceof Error ? err : new Error(String(err));
  if (timedOut || /Script execution timed out/.test(e.message)) {
    const s = msg.timeoutMs / 1000;
    return { name: 'TimeoutError', value: `Execution timed out after ${s} second${s === 1 ? '' : 's'}.`, traceback: '' };
  }
  if (/memory limit|Array buffer allocation failed|disposed/i.test(e.message)) {
    return { name: 'MemoryLimitError', value: `The code exceeded the memory limit of ${msg.memoryMb} MB.`, traceback: '' };
  }
  if (e.name === 'SyntaxError') return syntaxError(e.message, msg.bundle ?? msg.code);
  if (e instanceof ModuleError) return { name: 'Error', value: e.message, traceback: `Error: ${e.message}` };
  return { name: e.name || 'Error', value: e.message, traceback: e.stack ?? `${e.name}: ${e.message}` };
}

/** A Node-like syntax error report: location, the source line, a caret, then the message. */
function syntaxError(message: string, code: string): ExecutionErrorInfo {
  const m = /^(.*) \[main\.js:(\d+):(\d+)\]$/.exec(message);
  if (!m) return { name: 'SyntaxError', value: message, traceback: `SyntaxError: ${message}` };
  const [, text, line, col] = m;
  const src = code.split('\n')[Number(line) - 1] ?? '';
  const caret = ' '.repeat(Math.max(0, Number(col) - 1)) + '^';
  return { name: 'SyntaxError', value: text!, traceback: `main.js:${line}\n${src}\n${caret}\n\nSyntaxError: ${text}` };
}

/** Drops host frames, the runtime's frames and the wrapper's last-line frame from an isolate stack. */
function cleanStack(stack: string, wrapperLine: number): string {
  const cut = stack.indexOf('    at (<isolated-vm boundary>)');
  const s = cut >= 0 ? stack.slice(0, cut).trimEnd() : stack;
  return s
    .split('\n')
    .filter((l) => !(/^\s+at /.test(l) && (l.includes('<isolated-vm>') || l.includes(`main.js:${wrapperLine}:`))))
    .join('\n');
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
        prepared = prepare(raw.memoryMb, raw.maxLines, raw.maxBytes);
        prepared.catch(() => undefined);
      });
  }
});
process.on('unhandledRejection', () => undefined);
// Warm the first isolate with the pool's defaults (argv: memoryMb maxLines maxBytes).
{
  const [mem, lines, bytes] = process.argv.slice(2).map(Number);
  if (mem && lines && bytes) {
    prepared = prepare(mem, lines, bytes);
    prepared.catch(() => undefined);
  }
}
process.on('disconnect', () => process.exit(0));
send({ t: 'ready' });
