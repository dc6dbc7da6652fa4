/**
 * The page store (issue 27) on the service's SQL database (tables `scrape_cache` and
 * `page_snapshots`, core/storage/migrations.ts), or in memory when the engines run without one
 * (the plugin test harness).
 */
import type { Queryable } from '../../storage/db.js';
import type { EngineOptions } from '../options.js';
import { monitorOfTag } from '../../monitors/monitor-tag.js';
import type { CachedAnswer, PageSnapshot, PageStore } from './types.js';

/** Creates the page store on `opts.db`, else in memory. */
export function createPageStore(opts: Pick<EngineOptions, 'db'>): PageStore & { close(): Promise<void> } {
  const store = opts.db ? sqlStore(opts.db) : memoryStore();
  return { ...store, close: async () => undefined };
}

function sqlStore(db: Queryable): PageStore {
  return {
    async cacheGet(key, maxAgeMs) {
      const rows = await db.query<{ value: string; stored_at: Date }>(
        `SELECT value, stored_at FROM scrape_cache WHERE cache_key = $1 AND stored_at >= now() - ($2::bigint * interval '1 millisecond')`,
        [key, Math.floor(maxAgeMs)],
      );
      const row = rows[0];
      return row ? { value: JSON.parse(row.value), storedAt: new Date(row.stored_at) } : undefined;
    },
    async cachePut(key, value) {
      await db.query(
        `INSERT INTO scrape_cache (cache_key, value, stored_at) VALUES ($1, $2, now())
         ON CONFLICT (cache_key) DO UPDATE SET value = EXCLUDED.value, stored_at = EXCLUDED.stored_at`,
        [key, JSON.stringify(value)],
      );
    },
    async snapshotGet(owner, url, tag, maxAgeMs) {
      const rows = await db.query<{ content: string; extracted: string | null; taken_at: Date }>(
        `SELECT content, extracted, taken_at FROM page_snapshots WHERE key_id = $1 AND url = $2 AND tag = $3 AND taken_at >= now() - ($4::bigint * interval '1 millisecond')`,
        [owner, url, tag, Math.floor(maxAgeMs)],
      );
      const row = rows[0];
      return row ? { content: row.content, ...(row.extracted === null ? {} : { extracted: row.extracted }), takenAt: new Date(row.taken_at) } : undefined;
    },
    async snapshotPut(owner, url, tag, content, extracted) {
      // A monitor's history (its tag) lives only as long as the monitor: a run still fetching
      // when its monitor is deleted must not write back the history the DELETE just removed
      // (a scrape under that tag would then read `same`, not `new`). So the write checks the
      // monitor in its own statement. FOR KEY SHARE makes it wait for a DELETE of that monitor
      // in progress and then see the row gone (PostgreSQL, READ COMMITTED); and a DELETE that
      // comes after it waits for the write to commit, so the store's following removal of the
      // monitor's snapshots (MonitorStore.delete) sees this one. The embedded store runs one
      // statement at a time, so the check alone suffices there.
      const rows = await db.query<{ taken_at: Date }>(
        `INSERT INTO page_snapshots (key_id, url, tag, content, extracted, taken_at)
         SELECT $1::text, $2::text, $3::text, $4::text, $5::text, now()
         WHERE $6::text IS NULL OR EXISTS (SELECT 1 FROM monitors WHERE id = $6::text AND key_id = $1::text FOR KEY SHARE)
         ON CONFLICT (key_id, url, tag) DO UPDATE SET content = EXCLUDED.content, extracted = EXCLUDED.extracted, taken_at = EXCLUDED.taken_at RETURNING taken_at`,
        [owner, url, tag, content, extracted ?? null, monitorOfTag(tag) ?? null],
      );
      return rows[0] ? new Date(rows[0].taken_at) : undefined;
    },
    async snapshotDelete(owner, url, tag) {
      await db.query('DELETE FROM page_snapshots WHERE key_id = $1 AND url = $2 AND tag = $3', [owner, url, tag]);
    },
    async prune({ cacheMs, snapshotMs }) {
      await db.query(`DELETE FROM scrape_cache WHERE stored_at < now() - ($1::bigint * interval '1 millisecond')`, [Math.floor(cacheMs)]);
      await db.query(`DELETE FROM page_snapshots WHERE taken_at < now() - ($1::bigint * interval '1 millisecond')`, [Math.floor(snapshotMs)]);
    },
  };
}

function memoryStore(): PageStore {
  const cache = new Map<string, CachedAnswer>();
  const snaps = new Map<string, PageSnapshot>();
  const id = (owner: string, url: string, tag: string) => JSON.stringify([owner, url, tag]);
  return {
    async cacheGet(key, maxAgeMs) {
      const hit = cache.get(key);
      return hit && Date.now() - hit.storedAt.getTime() <= maxAgeMs ? { value: structuredClone(hit.value), storedAt: hit.storedAt } : undefined;
    },
    async cachePut(key, value) {
      cache.set(key, { value: structuredClone(value), storedAt: new Date() });
    },
    async snapshotGet(owner, url, tag, maxAgeMs) {
      const snap = snaps.get(id(owner, url, tag));
      return snap && Date.now() - snap.takenAt.getTime() <= maxAgeMs ? snap : undefined;
    },
    async snapshotPut(owner, url, tag, content, extracted) {
      const takenAt = new Date();
      snaps.set(id(owner, url, tag), { content, ...(extracted === undefined ? {} : { extracted }), takenAt });
      return takenAt;
    },
    async snapshotDelete(owner, url, tag) {
      snaps.delete(id(owner, url, tag));
    },
    async prune({ cacheMs, snapshotMs }) {
      const now = Date.now();
      for (const [k, v] of cache) if (now - v.storedAt.getTime() > cacheMs) cache.delete(k);
      for (const [k, v] of snaps) if (now - v.takenAt.getTime() > snapshotMs) snaps.delete(k);
    },
  };
}
