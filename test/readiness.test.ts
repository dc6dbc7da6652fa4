/** `/readyz` reports every shared store an instance depends on, so a load balancer can take it out. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { startServer } from './helpers/server.js';
import { postgresBackend } from './helpers/storage.js';
import { echoOnlyConfig } from './fixtures/test-plugins.js';

async function freePort(): Promise<number> {
  const srv = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => srv.once('listening', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** A Redis of this test's own, so stopping it disturbs nobody else. */
async function ownRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b) => {
      out += b;
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${out}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
    },
  };
}

describe('readiness', () => {
  it('turns 503 when Redis goes away, while the process stays up', async () => {
    const backend = await postgresBackend();
    const redis = await ownRedis();
    const s = await startServer({ env: { ...backend.env, REDIS_URL: redis.url }, serviceConfig: echoOnlyConfig() });
    try {
      assert.deepEqual((await s.call('GET', '/readyz')).json, { status: 'ready' });
      await redis.stop();
      const ready = await s.call('GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.json, { status: 'rate limiter unavailable' });
      assert.equal((await s.call('GET', '/healthz')).status, 200);
    } finally {
      await s.close();
      await redis.stop();
      await backend.dispose();
    }
  });
});
