/** Page store contract (owned by the web lane; issue 27): the scrape cache and change-tracking snapshots. */

/** An answer kept in the scrape cache. */
export interface CachedAnswer {
  /** The answer as stored (JSON). */
  value: unknown;
  storedAt: Date;
}

/** The last snapshot one key took of one URL (and tag). */
export interface PageSnapshot {
  content: string;
  /** Change tracking's json mode: what the model extracted from `content`, as JSON text (with what it was asked). */
  extracted?: string;
  takenAt: Date;
}

/**
 * The scrape cache and the change-tracking snapshots, in the service's store: the embedded
 * database, or PostgreSQL shared by every instance that uses it (so a cached scrape made by one
 * instance answers on another). Snapshots belong to an API key and go when it goes.
 */
export interface PageStore {
  /** The answer stored under `key` at most `maxAgeMs` ago, if any. */
  cacheGet(key: string, maxAgeMs: number): Promise<CachedAnswer | undefined>;
  /** Stores (or replaces) the answer under `key`. */
  cachePut(key: string, value: unknown): Promise<void>;
  /** The last snapshot `owner` took of `url` under `tag` ('' for none), if taken at most `maxAgeMs` ago. */
  snapshotGet(owner: string, url: string, tag: string, maxAgeMs: number): Promise<PageSnapshot | undefined>;
  /**
   * Records a snapshot (and what was extracted from it, if anything), replacing the last one;
   * returns when it was taken. Under a monitor's tag (`monitor:mon_…`) only while that monitor of
   * `owner` exists: otherwise nothing is kept and the answer is undefined.
   */
  snapshotPut(owner: string, url: string, tag: string, content: string, extracted?: string): Promise<Date | undefined>;
  /** Forgets the snapshot (the page was removed). */
  snapshotDelete(owner: string, url: string, tag: string): Promise<void>;
  /** Deletes cache entries older than `cacheMs` and snapshots older than `snapshotMs`. */
  prune(opts: { cacheMs: number; snapshotMs: number }): Promise<void>;
}
