/**
 * The code lane's black-box harness: a server with the code plugin and a secret in its
 * environment, a well-funded key, and a loopback page whose hit count tells whether sandboxed
 * code reached it.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './plugins.js';
import { startServer, type TestResponse, type TestServer } from './server.js';

/** A running code lane. */
export interface CodeLane {
  server: TestServer;
  key: string;
  /** Port of the loopback page sandboxed code must never reach. */
  loopbackPort: number;
  /** Requests the loopback page has had so far. */
  loopbackHits(): number;
  js(body: Record<string, unknown>): Promise<TestResponse>;
  py(body: Record<string, unknown>): Promise<TestResponse>;
  credits(): Promise<number>;
  close(): Promise<void>;
}

/** Starts the lane; `secret` is put in the server's environment as CODE_TEST_SECRET. Both engines are warm when it resolves. */
export async function startCodeLane(secret: string, env: Record<string, string>): Promise<CodeLane> {
  let hits = 0;
  const loopback = http.createServer((_req, res) => {
    hits++;
    res.end('loopback secret page');
  });
  await new Promise<void>((r) => loopback.listen(0, '127.0.0.1', () => r()));
  const server = await startServer({ serviceConfig: pluginsConfig(['code']), env: { CODE_TEST_SECRET: secret, ...env } });
  const { key } = await server.createKey({ credits: 1_000_000, rateLimitPerMinute: 10_000 });
  const lane: CodeLane = {
    server,
    key,
    loopbackPort: (loopback.address() as AddressInfo).port,
    loopbackHits: () => hits,
    js: (body) => server.call('POST', '/api/v1/run-js-code', { key, body }),
    py: (body) => server.call('POST', '/api/v1/run-python-code', { key, body }),
    credits: async () => (await server.call('GET', '/api/v2/balance', { key })).json.data.credits as number,
    async close() {
      await server.close();
      await new Promise((r) => loopback.close(r));
    },
  };
  // Start both engines (worker processes, pre-started sandboxes) before any test reads a clock.
  await Promise.all([lane.js({ code: 'console.log(1)' }), lane.py({ code: 'print(1)' })]);
  return lane;
}

/** The logs of a 200 answer. */
export function ok(res: TestResponse): { stdout: any; stderr: any } {
  assert.equal(res.status, 200, res.text.slice(0, 2000));
  return res.json.logs;
}

/** The `{ name, value, traceback }` of a 500 code-execution answer. */
export function failed(res: TestResponse): { name: string; value: string; traceback: string } {
  assert.equal(res.status, 500, res.text.slice(0, 2000));
  const e = res.json.error;
  assert.equal(typeof e, 'object', res.text.slice(0, 2000));
  for (const f of ['name', 'value', 'traceback']) assert.equal(typeof e[f], 'string', `${f} in ${res.text.slice(0, 2000)}`);
  return e;
}
