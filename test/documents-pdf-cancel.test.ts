/**
 * A caller that hangs up stops its PDF thread job (issue 24: cancellation reaches running work),
 * through the real server: merge-pdfs of a file of 20,000 pages keeps the one PDF thread busy for
 * many seconds; the caller hangs up while it runs, and the thread doing that work is terminated
 * (it is gone from the server's threads), nothing is charged, and another key's merge is served
 * by a fresh thread instead of waiting for the abandoned one. The thread is recognised by the CPU
 * it burns while the merge runs, read from /proc, so the test needs no hook into the engine.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { startServer, type TestServer } from './helpers/server.js';
import { textPdf } from './fixtures/extract/make.js';

let s: TestServer;
let keyA: string;
let keyB: string;
const b64 = (b: Buffer) => b.toString('base64');

/** A PDF of `pages` empty pages (cheap to send, slow for pdf-lib to copy). */
function blankPages(pages: number): Buffer {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ')}] /Count ${pages} >>`];
  for (let i = 0; i < pages; i++) objects.push('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>');
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

before(async () => {
  // A whole service process (its threads are read from /proc); one PDF thread and a job timeout
  // no test reaches: only the hang-up can end the abandoned merge.
  s = await startServer({ processMode: true, env: { PDF_THREADS: '1', PDF_TIMEOUT_MS: '600000' } });
  ({ key: keyA } = await s.createKey({ credits: 1000 }));
  ({ key: keyB } = await s.createKey({ credits: 1000 }));
});
after(async () => {
  await s?.close();
});

const balance = async (key: string) => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits;
const small = () => ({ inputMethod: 'base64', files: [b64(textPdf(['One'])), b64(textPdf(['Two']))] });

/** CPU ticks (user + system) of each thread of the server but its main one. */
function threadTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${s.pid}/task`).map(Number)) {
    if (tid === s.pid) continue;
    try {
      const stat = readFileSync(`/proc/${s.pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(tid, Number(fields[11]) + Number(fields[12]));
    } catch {
      /* ended meanwhile */
    }
  }
  return ticks;
}

const until = async (what: () => boolean) => {
  while (!what()) await new Promise((r) => setTimeout(r, 20));
};

test('a hang-up during merge-pdfs terminates the thread doing it; nothing is charged, and the next key is served by a fresh thread', async () => {
  // The PDF thread is started by a first merge, so the one measured below is already there.
  const warm = await s.call('POST', '/api/v1/merge-pdfs', { key: keyB, body: small() });
  assert.equal(warm.status, 200, warm.text);
  const startA = await balance(keyA);
  const startB = await balance(keyB);
  const before = threadTicks();
  const hangUp = new AbortController();
  const abandoned = fetch(`${s.url}/api/v1/merge-pdfs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keyA}`, 'content-type': 'application/json' },
    body: JSON.stringify({ inputMethod: 'base64', files: [b64(blankPages(20_000)), b64(textPdf(['End']))] }),
    signal: hangUp.signal,
  }).catch((err: Error) => err);
  // The merge is running once a thread has spent a second of CPU on it; that thread is the PDF thread.
  let busy: number | undefined;
  await until(() => {
    const now = threadTicks();
    let most = 0;
    for (const [tid, t] of now) {
      const spent = t - (before.get(tid) ?? 0);
      if (spent > most) [most, busy] = [spent, tid];
    }
    return most >= 100;
  });
  hangUp.abort();
  assert.ok((await abandoned) instanceof Error);

  const next = await s.call('POST', '/api/v1/merge-pdfs', { key: keyB, body: small() });
  assert.equal(next.status, 200, next.text);
  assert.ok(!existsSync(`/proc/${s.pid}/task/${busy}`), `thread ${busy} still runs the abandoned merge`);
  assert.equal(await balance(keyA), startA, 'the abandoned merge is free');
  assert.equal(await balance(keyB), startB - 50);
});
