/**
 * A caller's hang-up reaches running sandbox code (issue 24 "Cancellation that reaches running
 * work"): with one JavaScript worker and one Python slot and a run limit of ten minutes, an
 * endless loop whose client goes away is killed, its slot serves the next run, and the call is
 * free. The kill cannot be the run's own limit: the test ends long before it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { readdir, readFile } from 'node:fs/promises';
import { descendsFrom } from '../core/engines/processes.js';

let s: TestServer;
let key: string;

const gauge = async (name: string, engine: string): Promise<number> => {
  const text = (await s.call('GET', '/metrics', { key: s.adminToken })).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{engine="${engine}"} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
};

/**
 * Threads of this server's sandbox processes running on a CPU now: its descendants under a uid of the
 * sandbox range (SANDBOX_UID_BASE and up; each engine claims a block of its own there, wherever
 * the other servers of the suite left room).
 */
async function spinningSandboxes(): Promise<number> {
  let n = 0;
  for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? -1);
    if (uid < 61000 || !descendsFrom(Number(pid), process.pid)) continue;
    // The loop may spin in any thread (the JavaScript isolates run in worker threads).
    const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
    for (const tid of tasks) if (/^State:\s+R/m.test(await readFile(`/proc/${pid}/task/${tid}/status`, 'utf8').catch(() => ''))) n++;
  }
  return n;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

before(async () => {
  s = await startServer({
    serviceConfig: pluginsConfig(['code']),
    env: { SANDBOX_TIMEOUT_MS: '600000', SANDBOX_JS_WORKERS: '1', SANDBOX_MAX_CONCURRENT: '1' },
  });
  ({ key } = await s.createKey({ credits: 1000 }));
});
after(() => s?.close());

describe('hang-up during a sandbox run', () => {
  for (const [engine, path, loop, quick] of [
    ['js', '/api/v1/run-js-code', 'while (true) {}', 'console.log("next")'],
    ['python', '/api/v1/run-python-code', 'while True:\n    pass', 'print("next")'],
  ] as const) {
    it(`${engine}: the running loop is killed, its slot serves the next run, nothing is charged`, async () => {
      const ac = new AbortController();
      const pending = fetch(s.url + path, { method: 'POST', signal: ac.signal, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ code: loop, timeout: 600000 }) }).catch(() => undefined);
      await until(async () => (await gauge('cia_engine_active_jobs', engine)) === 1, `${engine} run to start`);
      // As root the sandboxes run under their own uids: the loop is seen on a CPU before the hang-up.
      if (process.getuid?.() === 0) await until(async () => (await spinningSandboxes()) >= 1, `${engine} loop on a CPU`);
      ac.abort();
      await pending;
      await until(async () => (await gauge('cia_engine_active_jobs', engine)) === 0, `${engine} run to be killed`);
      // Not only released: no sandbox process is left spinning (the loop would be on a CPU forever).
      await until(async () => (await spinningSandboxes()) === 0, `no ${engine} sandbox process left running`);
      const next = await s.call('POST', path, { key, body: { code: quick } });
      assert.equal(next.status, 200, next.text);
      assert.deepEqual(next.json.logs.stdout, ['next']);
      const usage = (await s.call('GET', '/api/v2/usage?limit=10', { key })).json.data.items as { status: number; credits: number }[];
      assert.ok(usage.some((r) => r.status === 499 && r.credits === 0), JSON.stringify(usage));
      const b = (await s.call('GET', '/api/v2/balance', { key })).json.data;
      assert.equal(b.reserved, 0);
    });
  }
});
