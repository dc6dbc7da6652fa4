/**
 * Stats over the roll-up and the live log agree with the rows: whole settled hours come from the
 * roll-up, recent and partial hours from the log, and the sums are the same either way.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite } from '../storage/pglite.js';
import { migrate } from '../storage/migrations.js';
import type { Db } from '../storage/db.js';
import { bulkInsert } from '../storage/bulk-insert.js';
import { usageStats } from './usage-stats.js';
import { quantile, refreshRollup } from './usage-rollup.js';

const H = 3_600_000;
const NOW = Date.UTC(2026, 10, 27, 12, 30);

describe('usage stats with the hourly roll-up', () => {
  let dir: string;
  let db: Db;
  const rows: { at: number; lane: string; status: number; credits: number; latency: number; key: string }[] = [];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cia-stats-'));
    db = await openPglite(join(dir, 'db'));
    await migrate(db);
    // 3 days of calls, one every 20 minutes, with a few errors and varied latencies.
    for (let t = NOW - 72 * H; t < NOW; t += 20 * 60_000) {
      const i = rows.length;
      rows.push({ at: t, lane: i % 3 === 0 ? 'v1' : 'v2', status: i % 7 === 0 ? 502 : 200, credits: i % 7 === 0 ? 0 : 10, latency: 50 + (i % 10) * 100, key: `key_${i % 2}` });
    }
    await bulkInsert(db, 'usage_log', ['request_id', 'key_id', 'lane', 'object_type', 'object_id', 'provider', 'status', 'code', 'credits', 'latency_ms', 'request_source', 'created_at'].map((name) => ({ name, type: name === 'status' || name === 'latency_ms' ? 'integer' : name === 'credits' ? 'bigint' : name === 'created_at' ? 'timestamptz' : 'text' }) as const),
      rows.map((r, i) => [`req_${i}`, r.key, r.lane, 'capability', 'scrape_page', 'web', r.status, null, r.credits, r.latency, 'API', new Date(r.at)]));
  });
  after(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const expected = (from: number, to: number) => {
    const inside = rows.filter((r) => r.at >= from && r.at < to);
    return { calls: inside.length, errors: inside.filter((r) => r.status >= 400).length, credits: inside.reduce((n, r) => n + r.credits, 0), v1: inside.filter((r) => r.lane === 'v1').length };
  };
  const totals = (buckets: Awaited<ReturnType<typeof usageStats>>) => ({
    calls: buckets.reduce((n, b) => n + b.calls, 0),
    errors: buckets.reduce((n, b) => n + b.errors, 0),
    credits: buckets.reduce((n, b) => n + b.credits, 0),
    v1: buckets.reduce((n, b) => n + (b.groups?.find((g) => g.key === 'v1')?.calls ?? 0), 0),
  });

  it('a month by the day and a day by the hour, including ranges cut mid-hour, match the rows before, during and after the roll-up', async () => {
    const cases: [number, number, 'hour' | 'day'][] = [
      [NOW - 30 * 24 * H, NOW, 'day'],
      [NOW - 24 * H, NOW, 'hour'],
      [NOW - 50 * H - 17 * 60_000, NOW - 3 * H + 11 * 60_000, 'hour'],
    ];
    // Round 0: nothing rolled up (all live); round 1: part of it; round 2: all settled hours.
    for (let round = 0; round < 3; round++) {
      if (round === 1) assert.equal(await refreshRollup(db, NOW, 30), true, 'more to roll up');
      if (round === 2) while (await refreshRollup(db, NOW, 30));
      for (const [from, to, bucket] of cases) {
        const got = await usageStats(db, { from: new Date(from), to: new Date(to), bucket, groupBy: 'lane' });
        assert.deepEqual(totals(got), expected(from, to), `${bucket} ${new Date(from).toISOString()} round ${round}`);
      }
    }
    const mark = await db.query<{ upto: Date }>('SELECT upto FROM usage_rollup_mark');
    assert.equal(new Date(mark[0]!.upto).getTime(), Math.floor((NOW - H) / H) * H, 'settled hours are rolled up, the last hour is not');
    const rolled = await db.query<{ n: string }>("SELECT sum(calls) AS n FROM usage_rollup WHERE dim = ''");
    assert.equal(Number(rolled[0]!.n), rows.filter((r) => r.at < Math.floor((NOW - H) / H) * H).length);
    const days = await db.query<{ n: string }>("SELECT sum(calls) AS n FROM usage_rollup_day WHERE dim = ''");
    assert.equal(Number(days[0]!.n), rows.filter((r) => r.at < Date.UTC(2026, 10, 27)).length, 'whole days are summed daily');
  });

  it('latency percentiles come within 5% of the exact ones', async () => {
    const got = await usageStats(db, { from: new Date(NOW - 72 * H), to: new Date(NOW), bucket: 'day' });
    const lat = rows.filter((r) => r.at >= Date.UTC(2026, 10, 25)).filter((r) => r.at < Date.UTC(2026, 10, 26)).map((r) => r.latency).sort((a, b) => a - b);
    const exact = (q: number) => lat[Math.ceil(q * lat.length) - 1]!;
    const day = got.find((b) => b.start === '2026-11-25T00:00:00.000Z')!;
    assert.ok(Math.abs(day.p50Ms! - exact(0.5)) <= exact(0.5) * 0.05, `p50 ${day.p50Ms} vs ${exact(0.5)}`);
    assert.ok(Math.abs(day.p95Ms! - exact(0.95)) <= exact(0.95) * 0.05, `p95 ${day.p95Ms} vs ${exact(0.95)}`);
    assert.equal(quantile(new Map(), 0.5), null);
  });
});
