/**
 * MCP progress for long tools (issue 25): a `tools/call` with `_meta.progressToken` on a stepwise
 * capability runs as a job and streams `notifications/progress` (in order, with the token) before
 * its result; without a token the call is the usual synchronous one. Credits are exact, failed
 * items free, a cancelled call cancels its job, and input the tool refuses stays a plain 400.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startServer, type TestServer } from './helpers/server.js';
import { jobsConfig } from './fixtures/job-plugins.js';
import { waitJob } from './helpers/jobs.js';

/** Every JSON-RPC message of one raw `tools/call` over the streamable HTTP transport, in arrival order. */
async function rawCall(s: TestServer, key: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<any[]> {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_pages', arguments: args, ...(meta ? { _meta: meta } : {}) } };
  const res = await fetch(`${s.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  return (await res.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
}

describe('MCP progress for long tools', () => {
  let s: TestServer;
  before(async () => {
    // One item at a time, so a job's progress comes in several steps.
    s = await startServer({ serviceConfig: jobsConfig(), env: { JOB_ITEM_CONCURRENCY: '1' } });
  });
  after(() => s?.close());
  const balance = async (key: string) => (await s.call('GET', '/api/v2/balance', { key })).json.data as { credits: number; reserved: number };
  const jobsOf = async (key: string) => (await s.call('GET', '/api/v2/jobs', { key })).json.data.items as any[];

  it('with a progress token: progress notifications in order with the token, then the results; charged 10 per page', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const messages = await rawCall(s, key, { count: 5, delayMs: 300 }, { progressToken: 'tok-7' });
    const notes = messages.filter((m) => m.method === 'notifications/progress');
    const last = messages[messages.length - 1];
    assert.equal(last.id, 1, 'the response comes last');
    assert.ok(notes.length >= 2, `notifications: ${JSON.stringify(notes)}`);
    for (const n of notes) {
      assert.equal(n.params.progressToken, 'tok-7');
      // The total is given once the job knows it (after its items are listed).
      if ('total' in n.params) assert.equal(n.params.total, 5);
      assert.equal(typeof n.params.message, 'string');
    }
    const values = notes.map((n) => n.params.progress as number);
    for (let i = 1; i < values.length; i++) assert.ok(values[i]! > values[i - 1]!, `strictly increasing: ${values}`);
    assert.equal(values[values.length - 1], 5);
    assert.equal(notes[notes.length - 1].params.total, 5);
    assert.equal(notes[notes.length - 1].params.message, '5 of 5 done');

    const result = last.result as CallToolResult;
    assert.equal(result.isError, undefined, JSON.stringify(result));
    // The tool's own output shape: the items in its one list field (here `pages`) in the order the
    // job listed them, nothing else; the job is named in `_meta`.
    const data = result.structuredContent as { pages: { key: string; n: number }[] };
    assert.deepEqual(Object.keys(data), ['pages']);
    assert.deepEqual(data.pages.map((r) => r.key), ['p0', 'p1', 'p2', 'p3', 'p4']);
    assert.equal(result._meta?.credits, 50);
    const b = await balance(key);
    assert.deepEqual([b.credits, b.reserved], [50, 0]);
    // The job is the key's own, readable through the jobs API with the same charge.
    const [job] = await jobsOf(key);
    assert.deepEqual([job.id, job.status, job.creditsCharged], [result._meta?.jobId, 'completed', 50]);
  });

  it('without a token: no notification, the synchronous answer and charge', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const messages = await rawCall(s, key, { count: 3 });
    assert.deepEqual(messages.map((m) => m.method ?? 'response'), ['response']);
    const result = messages[0].result as CallToolResult;
    assert.deepEqual((result.structuredContent as { pages: { key: string }[] }).pages.map((p) => p.key), ['p0', 'p1', 'p2']);
    assert.equal(result._meta?.credits, 30);
    assert.equal((await balance(key)).credits, 70);
    assert.deepEqual(await jobsOf(key), [], 'no job');
  });

  it('a slow call that is not stepwise sends a heartbeat with the token, then its usual answer', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_echo', arguments: { text: 'slow', delayMs: 7000 }, _meta: { progressToken: 'beat' } } };
    const res = await fetch(`${s.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) });
    const messages = (await res.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
    const notes = messages.filter((m) => m.method === 'notifications/progress');
    assert.ok(notes.length >= 1, JSON.stringify(messages));
    assert.deepEqual(notes[0].params, { progressToken: 'beat', progress: 1, message: 'Still running (5 s)' });
    const result = messages[messages.length - 1].result as CallToolResult;
    assert.deepEqual(result.structuredContent, { echo: 'slow', by: 'test_echo' });
    assert.equal((await balance(key)).credits, 90);
    assert.deepEqual(await jobsOf(key), [], 'no job');
  });

  it('failed pages are free and counted in the progress; input beyond the tool schema is the usual 400, uncharged, no job', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const messages = await rawCall(s, key, { count: 4, fail: ['p2'] }, { progressToken: 9 });
    const notes = messages.filter((m) => m.method === 'notifications/progress');
    assert.ok(notes.every((n) => n.params.progressToken === 9));
    assert.equal(notes[notes.length - 1].params.progress, 4);
    assert.equal(notes[notes.length - 1].params.message, '3 of 4 done, 1 failed');
    const result = messages[messages.length - 1].result as CallToolResult;
    assert.equal(result._meta?.credits, 30);
    assert.equal((await balance(key)).credits, 70);

    const other = await s.createKey({ credits: 100 });
    const bad = await rawCall(s, other.key, { count: 6 }, { progressToken: 'x' });
    assert.equal(bad.length, 1);
    assert.equal(bad[0].result.isError, true);
    assert.equal(bad[0].result._meta.code, 'INVALID_INPUT');
    assert.deepEqual(await jobsOf(other.key), []);
    assert.equal((await balance(other.key)).credits, 100);
  });

  it('a cancelled call cancels its job: pages done stay charged, nothing else', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const client = new Client({ name: 'progress-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    const abort = new AbortController();
    const seen: number[] = [];
    const call = client.callTool({ name: 'test_pages', arguments: { count: 5, delayMs: 1500 } }, undefined, {
      signal: abort.signal,
      onprogress: (p) => {
        seen.push(p.progress);
        if (p.progress >= 1) abort.abort('enough');
      },
    });
    await assert.rejects(call);
    assert.ok(seen.length >= 1 && seen.includes(0), `progress seen: ${seen}`);
    const [listed] = await jobsOf(key);
    const job = await waitJob(s, key, listed.id);
    assert.equal(job.status, 'cancelled');
    assert.ok(job.progress.done >= 1 && job.progress.done < 5, `done ${job.progress.done}`);
    assert.equal(job.creditsCharged, job.progress.done * 10);
    const b = await balance(key);
    assert.deepEqual([b.credits, b.reserved], [100 - job.creditsCharged, 0]);
    await client.close();
  });

  it('through the stdio bridge: the agent gets the progress under its own token, then the result', async () => {
    const { key } = await s.createKey({ credits: 100 });
    const client = new Client({ name: 'desktop-agent', version: '1.0.0' });
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', BASE_URL: s.url, API_KEY: key };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', 'server/mcp/stdio.ts'], cwd: join(import.meta.dirname, '..'), env, stderr: 'pipe' }));
    try {
      const seen: number[] = [];
      const result = (await client.callTool({ name: 'test_pages', arguments: { count: 3, delayMs: 200 } }, undefined, { onprogress: (p) => seen.push(p.progress) })) as CallToolResult;
      assert.ok(seen.length >= 2, `progress seen: ${seen}`);
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!, `strictly increasing: ${seen}`);
      assert.equal(seen[seen.length - 1], 3, `seen ${seen}`);
      assert.equal(result._meta?.credits, 30);
      assert.equal((await balance(key)).credits, 70);
    } finally {
      await client.close();
    }
  });
});
