/** The usage journal's file format, rotation and clean close (the SIGKILL replay is test/ops-journal.test.ts). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pendingRows, UsageJournal } from './journal.js';
import type { UsageRow } from './usage-log.js';

const row = (requestId: string): UsageRow => ({ requestId, keyId: 'k', lane: 'v2', objectType: 'capability', objectId: 'test_echo', provider: 'p', status: 200, code: null, credits: 10, latencyMs: 3, requestSource: 'API', createdAt: new Date(0) });
const start = (requestId: string) => ({ requestId, keyId: 'k', lane: 'v1' as const, path: '/api/v1/scrape', startedAt: 0 });

describe('usage journal', () => {
  it('rotates into one file that keeps exactly the calls still open, and a clean close deletes it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cia-jrnl-'));
    const saved = UsageJournal.rotateBytes;
    UsageJournal.rotateBytes = 600;
    try {
      const j = UsageJournal.start(dir, 42);
      j.begin(start('open-1'));
      j.begin(start('done-1'));
      j.finish(row('done-1'));
      j.finish(row('written-but-uncommitted'));
      for (let i = 0; i < 20; i++) {
        j.begin(start(`x${i}`));
        j.finish(row(`x${i}`));
        j.done([`x${i}`]);
      }
      j.done(['done-1']);
      const files = readdirSync(dir);
      assert.equal(files.length, 1, 'the old file is gone after rotation');
      const p = pendingRows(readFileSync(join(dir, files[0]!), 'utf8'));
      assert.equal(p.floorId, 42);
      assert.deepEqual(p.rows.map((r) => r.requestId), ['written-but-uncommitted']);
      assert.deepEqual(p.cut.map((c) => c.requestId), ['open-1']);
      j.close();
      assert.equal(readdirSync(dir).length, 1, 'calls still open: the journal stays for the next start');
      const k = UsageJournal.start(dir, 0);
      k.begin(start('a'));
      k.finish(row('a'));
      k.done(['a']);
      k.close();
      k.finish(row('late')); // after close: ignored, no throw
      assert.equal(readdirSync(dir).length, 1, 'a journal with nothing open is deleted at close');
    } finally {
      UsageJournal.rotateBytes = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lets an answer go only once its row's line is in the file, one write for the tick's rows", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cia-jrnl-'));
    try {
      const j = UsageJournal.start(dir, 0);
      const file = join(dir, readdirSync(dir)[0]!);
      const sent: string[] = [];
      const inFile = () => pendingRows(readFileSync(file, 'utf8')).rows.map((r) => r.requestId);
      j.begin(start('a'));
      j.finish(row('a'), () => sent.push(`a:${inFile().join(',')}`));
      j.finish(row('b'), () => sent.push(`b:${inFile().join(',')}`));
      assert.deepEqual([sent, inFile()], [[], []], 'nothing is written or sent before the tick ends');
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(sent, ['a:a,b', 'b:a,b'], 'both answers went after the one write that holds both rows');
      j.finish(row('c'), () => sent.push('c'));
      j.close();
      assert.deepEqual(sent.at(-1), 'c', 'closing writes what is queued and lets its answers go');
      assert.deepEqual(pendingRows(readFileSync(file, 'utf8')).rows.map((r) => r.requestId), ['a', 'b', 'c']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ignores a last line cut short by the kill', () => {
    const text = `{"h":1,"floorId":7}\n{"b":{"requestId":"r1","keyId":"k","lane":"v2","path":"/api/v2/run","startedAt":1}}\n{"r":{"requestId":"r2","keyId":"k","la`;
    const p = pendingRows(text);
    assert.deepEqual([p.floorId, p.rows.length, p.cut.map((c) => c.requestId)], [7, 0, ['r1']]);
  });
});
