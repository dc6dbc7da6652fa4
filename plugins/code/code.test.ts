/** The code plugin's parseJson rule (spec §4.8; README "parseJson") and what its endpoints hand the engines. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runContext } from '../../core/testing/index.js';
import type { JsRunRequest, SandboxRunRequest } from '../../core/sdk.js';
import { shapeLogs } from './logs.js';
import plugin from './index.js';

test('parseJson off or an empty stream keeps the lines', () => {
  assert.deepEqual(shapeLogs(['{"a":1}'], false), ['{"a":1}']);
  assert.deepEqual(shapeLogs(['{"a":1}'], undefined), ['{"a":1}']);
  assert.deepEqual(shapeLogs([], true), []);
});

test('the whole stream is parsed first, even across lines', () => {
  assert.deepEqual(shapeLogs(['{', '  "a": [1, 2]', '}'], true), { a: [1, 2] });
  assert.equal(shapeLogs(['42'], true), 42);
  assert.equal(shapeLogs(['null'], true), null);
});

test('otherwise the last line that parses wins; no JSON keeps the lines', () => {
  assert.deepEqual(shapeLogs(['loading', '{"step":1}', '{"step":2}', 'done', ''], true), { step: 2 });
  assert.deepEqual(shapeLogs(['plain', 'text'], true), ['plain', 'text']);
  assert.deepEqual(shapeLogs(['not json'], true), ['not json']);
});

test('a truncated stream is never parsed: the lines and the note stay visible', () => {
  const note = '[output truncated: the stream is limited to 3 lines and 1000000 bytes]';
  assert.deepEqual(shapeLogs(['{"n":1}', '{"n":2}', '{"n":3}', note], true), ['{"n":1}', '{"n":2}', '{"n":3}', note]);
  assert.deepEqual(shapeLogs(['[1,', note], true), ['[1,', note]);
  // Without the cut the same lines parse as before.
  assert.deepEqual(shapeLogs(['{"n":1}', '{"n":2}', '{"n":3}'], true), { n: 3 });
});

test('the endpoints pass the caller, the limits and saveOutputFiles on, and list stored files', async () => {
  const seen: JsRunRequest[] = [];
  const js = { kind: 'js' as const, run: async (req: JsRunRequest) => (seen.push(req), { stdout: ['x'], stderr: [], truncated: false, durationMs: 1, limits: { timeoutMs: 2000, memoryMb: 64 }, files: [] }) };
  const stored: string[] = [];
  const python = {
    kind: 'python' as const,
    run: async (req: SandboxRunRequest) => (seen.push(req), { stdout: [], stderr: [], truncated: false, durationMs: 1, limits: { timeoutMs: 10_000, memoryMb: 512 }, files: [{ name: 'out/a.csv', data: new Uint8Array(3) }], filesOmitted: 2 }),
  };
  const files = {
    put: async (data: Uint8Array, o: { contentType: string; extension: string }) => (stored.push(`${o.extension} ${o.contentType}`), { id: 'id', url: `https://files.test/id.${o.extension}`, size: data.length, expiresAt: new Date(), contentType: o.contentType }),
    open: async () => assert.fail('not used'),
  };
  const { ctx } = runContext({ engines: { js, python, files } });
  // The executor's key id, once it hands plugins one (README "Fair share").
  Object.assign(ctx, { caller: 'key-1' });
  const [runJs, runPy] = plugin.endpoints!;
  const a = await runJs!.run({ code: 'x', timeout: 2000, memory: 64 }, ctx);
  assert.deepEqual(a, { logs: { stdout: ['x'], stderr: [] }, limits: { timeoutMs: 2000, memoryMb: 64 } });
  assert.deepEqual([seen[0]!.timeoutMs, seen[0]!.memoryMb, seen[0]!.saveFiles, (seen[0] as JsRunRequest).owner], [2000, 64, undefined, 'key-1']);
  const b = await runPy!.run({ code: 'x', saveOutputFiles: true }, ctx);
  assert.deepEqual(b, { logs: { stdout: [], stderr: [] }, limits: { timeoutMs: 10_000, memoryMb: 512 }, files: [{ name: 'out/a.csv', url: 'https://files.test/id.csv', size: 3 }], filesOmitted: 2 });
  assert.deepEqual(seen[1]!.saveFiles, { maxFiles: 100 });
  assert.deepEqual(stored, ['csv text/csv; charset=utf-8']);
});
