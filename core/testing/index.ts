/**
 * The plugin author's testing kit (issues 11 and 29): what a provider's tests and fakes import,
 * besides `core/sdk.ts`. `pluginHarness` runs a plugin's endpoints and capabilities through the
 * real executor without the HTTP server; `runContext` builds a context for unit tests of a client;
 * `fakeUpstream` declares a loopback fake of a provider's contract (routes, key, error body,
 * failure modes, request log); `providerFaultSuite` proves a plugin's upstream error mapping
 * against that fake in one call; `recordings` reads a fake's recorded answers, `checked` refuses a
 * request that fails a route's schema (`literals` declares a field's accepted values with the
 * provider's own refusal), `outcome` turns a call into `'<status> <message>'`, `staysQuiet` proves
 * a fake hears nothing more, `like` asserts the parts of a request or result a test is about
 * (`exactly` where a part must match whole). `serveLoopback`, `readBody` and `sendJson` are the
 * lower-level pieces for a fake that is not HTTP-request/answer shaped.
 */
export { pluginHarness, type PluginHarness, type HarnessOptions, type HarnessResult } from './harness.js';
export { runContext, type TestRunContext, type RunContextOptions } from './run-context.js';
export { fakeUpstream, type FakeUpstream, type FakeUpstreamSpec, type FakeAuth, type FakeRoute } from './fake-upstream.js';
export type { FakeAnswer, FakeRequest } from './fake-routes.js';
export { withFake, type FakeTestbed } from './fake-testbed.js';
export { providerFaultSuite, type FaultSuiteOptions, type Fault } from './fault-suite.js';
export { solidPng, pngSize } from './png.js';
export { SAMPLE_IMAGES, type SampleImage } from './images.js';
export { recordings, fill, type RecordedVars } from './recorded.js';
export { checked, literals, violations, firstViolation, type Violation, type RequestSchemas } from './request-check.js';
export { outcome, eventually, staysQuiet } from './outcome.js';
export { like, exactly } from './like.js';
export { serveLoopback, type LoopbackServer } from './loopback.js';
export { readBody, sendJson } from './fake-http.js';
export { RecordingLedger } from './free-ledger.js';
export { fileOrigin, type OriginFile } from './file-origin.js';
export { hugePng } from './huge-png.js';
