/**
 * The plugin author's testing kit (issue 11): what a provider's tests and fakes import, besides
 * `core/sdk.ts`. `pluginHarness` runs a plugin's endpoints and capabilities through the real
 * executor without the HTTP server; `runContext` builds a context for unit tests of a client;
 * `serveLoopback`, `readBody` and `sendJson` make loopback fakes of a provider's contract.
 */
export { pluginHarness, type PluginHarness, type HarnessOptions, type HarnessResult } from './harness.js';
export { runContext, type TestRunContext, type RunContextOptions } from './run-context.js';
export { serveLoopback, type LoopbackServer } from './loopback.js';
export { readBody, sendJson } from './fake-http.js';
export { RecordingLedger } from './free-ledger.js';
