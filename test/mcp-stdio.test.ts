/**
 * The stdio bridge end to end (issue 17 §5): `server/mcp/stdio.ts` spawned as a child process by
 * the SDK's StdioClientTransport, forwarding to a running server: the same tools as `/mcp`, calls
 * charged and recorded by the instance, tool errors passed through, the discovery mode, and a
 * clear exit for missing settings or a refused key.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startServer, type TestServer } from './helpers/server.js';
import { testServiceConfig } from './fixtures/test-plugins.js';

const ROOT = join(import.meta.dirname, '..');
const BRIDGE = ['--import', 'tsx', 'server/mcp/stdio.ts'];

let s: TestServer;
const clients: Client[] = [];

async function bridge(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'desktop-agent', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: BRIDGE, cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stderr: 'pipe' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

before(async () => {
  s = await startServer({ serviceConfig: testServiceConfig() });
});

after(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await s.close();
});

describe('MCP stdio bridge', () => {
  it('serves the instance tools over stdio; calls are charged and recorded by the instance', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const client = await bridge({ BASE_URL: s.url, API_KEY: key });
    assert.equal(client.getServerVersion()?.name, 'content-intelligence-api');
    assert.match(client.getInstructions() ?? '', /credits/);

    const direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    clients.push(direct);
    const viaBridge = (await client.listTools()).tools;
    assert.deepEqual(viaBridge, (await direct.listTools()).tools);
    assert.ok(viaBridge.some((t) => t.name === 'test_echo'));

    const ok = (await client.callTool({ name: 'test_echo', arguments: { text: 'over stdio' } })) as CallToolResult;
    assert.deepEqual(ok.structuredContent, { echo: 'over stdio', by: 'test_echo' });
    assert.equal((ok._meta as any).credits, 10);
    const bad = (await client.callTool({ name: 'test_echo', arguments: {} })) as CallToolResult;
    assert.equal(bad.isError, true);
    assert.equal((bad.content[0] as { text: string }).text, "Invalid input: 'text' expected required property.");

    const balance = (await s.call('GET', '/api/v2/balance', { key })).json.data;
    assert.equal(balance.credits, 90);
    const rows = (await s.call('GET', '/api/v2/usage', { key })).json.data.items.filter((r: any) => r.lane === 'mcp');
    assert.deepEqual(rows.map((r: any) => `${r.objectId} ${r.status} ${r.credits} ${r.requestSource}`), ['test_echo 400 0 mcp', 'test_echo 200 10 mcp']);
  });

  it('cancelling a call through the bridge releases the reservation on the instance', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const client = await bridge({ BASE_URL: s.url, API_KEY: key });
    const abort = new AbortController();
    const slow = client.callTool({ name: 'test_echo', arguments: { text: 'slow', delayMs: 30_000 } }, undefined, { signal: abort.signal });
    const reserved = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.reserved as number;
    for (let i = 0; i < 400 && (await reserved()) !== 10; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(await reserved(), 10);
    abort.abort('stop');
    await assert.rejects(slow);
    for (let i = 0; i < 400 && (await reserved()) !== 0; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(await reserved(), 0);
    assert.equal((await s.call('GET', '/api/v2/balance', { key })).json.data.credits, 100);
  });

  it('MCP_TOOLS_MODE=discovery forwards the three-tool mode', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const client = await bridge({ BASE_URL: s.url, API_KEY: key, MCP_TOOLS_MODE: 'discovery' });
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['search', 'details', 'run']);
  });

  it('exits 1 with a message on stderr for missing settings or a key the instance refuses', async () => {
    // Asynchronously: the server under test runs in this process and must keep answering.
    const run = (env: Record<string, string>) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, BRIDGE, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (b) => (stdout += b));
        child.stderr.on('data', (b) => (stderr += b));
        child.once('exit', (status) => resolve({ status, stdout, stderr }));
      });
    const missing = await run({ BASE_URL: s.url });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /API_KEY is required/);
    assert.equal(missing.stdout, '');
    const refused = await run({ BASE_URL: s.url, API_KEY: 'cia_wrong' });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /API key is invalid or missing\./);
  });
});
