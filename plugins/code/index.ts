/**
 * The service's own code-execution plugin (spec §4.8, issue 6): `code.run_js` runs JavaScript in
 * the isolated-vm worker pool and `code.run_python` runs CPython in a bubblewrap sandbox. Both
 * serve the legacy capabilities `run_js_code` / `run_python_code` (v1 `/api/v1/run-js-code`,
 * `/api/v1/run-python-code`). A run that throws, times out or exhausts memory becomes a
 * `CodeExecutionError`, which the v1 lane writes as `{ error: { name, value, traceback } }`.
 */
import { CodeExecutionError, defineEndpoint, definePlugin, type RunContext, type Static } from '../../core/sdk.js';
import type { SandboxFetchRequest, SandboxFetchResponse, SandboxResult } from '../../core/sdk.js';
import { JsInput, LogsOutput, MAX_SAVED_FILES, PythonInput, runJsCode, runPythonCode, type CodeInputValue } from '../../core/catalogue.js';
import { shapeLogs } from './logs.js';
import { saveFiles } from './files.js';

/** The sandboxed `fetch` limits (issue 6: "through the SSRF guard and size/time limits"). */
const FETCH_MAX_BYTES = 5 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 8_000;
/** Executor bound: the 10 s code limit plus a package install and its bundling. */
const ENDPOINT_TIMEOUT_MS = 150_000;

/** Serves the isolate's `fetch` through the HTTP engine with the SSRF guard on. */
async function guardedFetch(ctx: RunContext<unknown>, req: SandboxFetchRequest, signal: AbortSignal): Promise<SandboxFetchResponse> {
  const res = await ctx.engines.http.request({
    url: req.url,
    method: req.method,
    headers: req.headers,
    body: req.body,
    guard: true,
    maxBytes: FETCH_MAX_BYTES,
    timeoutMs: FETCH_TIMEOUT_MS,
    maxRedirects: 5,
    signal: AbortSignal.any([signal, ctx.signal]),
  });
  return { status: res.status, statusText: '', url: res.url, headers: res.headers, body: res.body };
}

/**
 * The calling API key's id, when the executor hands plugins one (`ctx.caller`): the JavaScript
 * pool shares its workers fairly between keys by it (issue 18, item 9), and both sandboxes
 * schedule a key's further concurrent runs lower (`CODE_NICE_STEP`). Without it every run has the
 * same owner.
 */
function callerOf(ctx: RunContext<unknown>): string | undefined {
  const caller = (ctx as { caller?: unknown }).caller;
  return typeof caller === 'string' && caller !== '' ? caller : undefined;
}

/** The run options of the request: the client's limits and whether to hand back files (issue 19, item 2). */
function runOptions(input: CodeInputValue) {
  return { timeoutMs: input.timeout, memoryMb: input.memory, saveFiles: input.saveOutputFiles ? { maxFiles: MAX_SAVED_FILES } : undefined };
}

/**
 * Turns a sandbox result into the spec's response plus the limits that applied and, with
 * `saveOutputFiles`, the stored files; or throws the execution error object (nothing is stored).
 */
async function answer(ctx: RunContext<unknown>, result: SandboxResult, input: CodeInputValue): Promise<Static<typeof LogsOutput>> {
  if (result.error) throw new CodeExecutionError(result.error.name, result.error.value, result.error.traceback);
  const out: Static<typeof LogsOutput> = { logs: { stdout: shapeLogs(result.stdout, input.parseJson), stderr: shapeLogs(result.stderr, input.parseJson) } };
  if (result.limits) out.limits = result.limits;
  if (input.saveOutputFiles) {
    out.files = await saveFiles(ctx, result.files ?? []);
    if (result.filesOmitted) out.filesOmitted = result.filesOmitted;
  }
  return out;
}

const runJs = defineEndpoint({
  operation: 'run_js',
  title: 'Run JavaScript in an isolate',
  summary: 'Runs JavaScript in a fresh isolated-vm isolate in a worker process; `commands` may npm-install packages first.',
  tags: ['code', 'javascript'],
  visibility: 'legacy',
  input: JsInput,
  output: LogsOutput,
  cost: runJsCode.cost,
  timeoutMs: ENDPOINT_TIMEOUT_MS,
  perKeyConcurrency: 32,
  validate: runJsCode.validate,
  messages: runJsCode.messages,
  examples: runJsCode.examples,
  async run(input, ctx) {
    const result = await ctx.engines.js.run({
      code: input.code,
      commands: input.commands,
      ...runOptions(input),
      signal: ctx.signal,
      fetch: (req, signal) => guardedFetch(ctx, req, signal),
      owner: callerOf(ctx),
    });
    return answer(ctx, result, input);
  },
});

const runPython = defineEndpoint({
  operation: 'run_python',
  title: 'Run Python in an OS sandbox',
  summary: 'Runs /usr/bin/python3 under bubblewrap as an unprivileged uid without network; `commands` may pip-install packages first.',
  tags: ['code', 'python'],
  visibility: 'legacy',
  input: PythonInput,
  output: LogsOutput,
  cost: runPythonCode.cost,
  timeoutMs: ENDPOINT_TIMEOUT_MS,
  perKeyConcurrency: 32,
  validate: runPythonCode.validate,
  messages: runPythonCode.messages,
  examples: runPythonCode.examples,
  async run(input, ctx) {
    const result = await ctx.engines.python.run({ code: input.code, commands: input.commands, ...runOptions(input), signal: ctx.signal, owner: callerOf(ctx) });
    return answer(ctx, result, input);
  },
});

/** The managed `code` plugin: both endpoints and the capabilities they serve (README.md). */
export default definePlugin({
  id: 'code',
  apiVersion: 1,
  title: 'Code execution',
  summary: 'Sandboxed JavaScript (isolated-vm) and Python (bubblewrap) execution on this machine.',
  tags: ['code', 'sandbox'],
  managed: true,
  endpoints: [runJs, runPython],
  implements: [
    { capability: 'run_js_code', endpoint: 'run_js' },
    { capability: 'run_python_code', endpoint: 'run_python' },
  ],
});
