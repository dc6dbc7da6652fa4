/**
 * Issue 24, bench:abuse's PDF-bomb flood: the service's own helper threads (V8's garbage-collector
 * and compiler threads, libuv's pool, which inflates the PDF pre-check's streams) and the PDF
 * threads ran at the serving thread's priority, so refusing bombs kept two of them busy while the
 * serving thread waited for a core. Through the real entry point (`server/main.ts`, a process of
 * its own): once it says it listens, every thread but the serving one is `HELPER_THREADS_NICE`
 * (default 5) or lower, and stays so after a merge has started the PDF threads.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { startServer, type TestServer } from './helpers/server.js';
import { assemble } from './fixtures/extract/make.js';

let s: TestServer;
before(async () => {
  s = await startServer({ processMode: true });
});
after(() => s?.close());

/** Nice value of every thread of the instance, the serving (main) thread apart. */
function niceValues(pid: number): { serving: number; others: number[] } {
  const nice = (tid: string) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  };
  const others: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    if (tid === String(pid)) continue;
    try {
      others.push(nice(tid));
    } catch {
      // Ended while read.
    }
  }
  return { serving: nice(String(pid)), others };
}

const onePage = () =>
  assemble([Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'), Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'), Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>')], '1.5').toString('base64');

test('every thread but the serving one runs HELPER_THREADS_NICE below it, the PDF threads a merge starts included', { skip: process.platform !== 'linux' }, async () => {
  // Counted from the serving thread's own level: a suite run under `nice` starts the instance there.
  const boot = niceValues(s.pid);
  const floor = Math.min(19, boot.serving + 5);
  assert.ok(boot.others.length >= 4, `helper threads seen: ${boot.others.length}`);
  assert.deepEqual(boot.others.filter((n) => n < floor), [], 'no helper thread at the serving thread’s level after boot');

  const { key } = await s.createKey({ credits: 100 });
  const r = await s.call('POST', '/api/v1/merge-pdfs', { key, body: { inputMethod: 'base64', files: [onePage(), onePage()] } });
  assert.equal(r.status, 200, r.text);
  const after = niceValues(s.pid);
  assert.ok(after.others.length > boot.others.length, 'the merge started PDF threads');
  assert.equal(after.serving, boot.serving);
  assert.deepEqual(after.others.filter((n) => n < floor), [], 'no thread started for the merge at the serving thread’s level');
});
