/**
 * API keys in the database, with a small cache in front of the per-request lookup by hash.
 * The cache is invalidated on every local change; other instances see a change within
 * `cacheTtlMs` (documented in the README).
 */
import { LRUCache } from 'lru-cache';
import type { Db, Row } from '../storage/db.js';
import type { KeyRecord, KeyUpdate } from './types.js';
import { hashKey, newKey, periodStartOf } from './secret.js';
import { InputError, NotFoundError } from '../errors.js';

/** Maps a database row to a record. */
export function rowToKey(r: Row): KeyRecord {
  return {
    id: r.id,
    name: r.name,
    prefix: r.key_prefix,
    credits: Number(r.credits),
    budget: r.budget === null || r.budget === undefined ? null : Number(r.budget),
    periodStart: new Date(r.period_start),
    periodSpent: Number(r.period_spent),
    rateLimit: Number(r.rate_limit),
    active: Boolean(r.active),
    policy: typeof r.policy === 'string' ? JSON.parse(r.policy) : (r.policy ?? {}),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/** Options for a new key. */
export interface NewKeyInput {
  name: string;
  credits: number;
  rateLimitPerMinute: number;
  budget?: number | null;
  policy?: KeyRecord['policy'];
}

/** Reads and writes API keys. */
export class KeyStore {
  private readonly byHash: LRUCache<string, { rec: KeyRecord | null }>;

  private readonly caching: boolean;

  /** `cacheTtlMs`: null caches until a local change (single instance), 0 disables the cache. */
  constructor(private readonly db: Db, cacheTtlMs: number | null) {
    this.caching = cacheTtlMs !== 0;
    this.byHash = new LRUCache({ max: 10_000, ttl: cacheTtlMs ? cacheTtlMs : undefined, ttlAutopurge: false });
  }

  /** Creates a key; the plaintext is returned here and never again. */
  async create(input: NewKeyInput): Promise<{ record: KeyRecord; key: string }> {
    const { id, key } = newKey();
    const rows = await this.db.transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO api_keys (id, name, key_hash, key_prefix, credits, budget, period_start, rate_limit, policy)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) RETURNING *`,
        [id, input.name, hashKey(key), key.slice(0, 10), input.credits, input.budget ?? null, periodStartOf(), input.rateLimitPerMinute, JSON.stringify(input.policy ?? {})],
      );
      if (input.credits > 0) {
        await tx.query(`INSERT INTO ledger (key_id, kind, amount, balance_after, reason) VALUES ($1,'grant',$2,$2,'initial credits')`, [id, input.credits]);
      }
      return inserted;
    });
    return { record: rowToKey(rows[0]!), key };
  }

  /** The key a bearer token belongs to, or null. */
  async findByToken(token: string): Promise<KeyRecord | null> {
    const h = hashKey(token);
    const hit = this.byHash.get(h);
    if (hit) return hit.rec;
    const rows = await this.db.query('SELECT * FROM api_keys WHERE key_hash = $1', [h], { prepared: true });
    const rec = rows[0] ? rowToKey(rows[0]) : null;
    if (this.caching) this.byHash.set(h, { rec });
    return rec;
  }

  /** One key by id. */
  async get(id: string): Promise<KeyRecord> {
    const rows = await this.db.query('SELECT * FROM api_keys WHERE id = $1', [id]);
    if (!rows[0]) throw new NotFoundError(`Key not found: ${id}`);
    return rowToKey(rows[0]);
  }

  /** All keys, newest first, paged; `search` keeps those whose name, id or prefix contains it (any case). */
  async list(page: number, limit: number, search?: string): Promise<KeyRecord[]> {
    const params: unknown[] = [limit, (page - 1) * limit];
    let where = '';
    if (search) {
      // LIKE's own wildcards in the search text are literal characters.
      params.push(`%${search.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
      where = `WHERE lower(name) LIKE $3 OR lower(id) LIKE $3 OR lower(key_prefix) LIKE $3`;
    }
    const rows = await this.db.query(`SELECT * FROM api_keys ${where} ORDER BY created_at DESC, id LIMIT $1 OFFSET $2`, params);
    return rows.map(rowToKey);
  }

  /** Gives a key a new secret (returned here and never again); the old one is refused from now on. */
  async rotate(id: string): Promise<{ record: KeyRecord; key: string }> {
    const { key } = newKey();
    const rows = await this.db.query('UPDATE api_keys SET key_hash = $2, key_prefix = $3, updated_at = now() WHERE id = $1 RETURNING *', [id, hashKey(key), key.slice(0, 10)]);
    if (!rows[0]) throw new NotFoundError(`Key not found: ${id}`);
    this.byHash.clear();
    return { record: rowToKey(rows[0]), key };
  }

  /** Changes admin-editable fields. */
  async update(id: string, patch: KeyUpdate): Promise<KeyRecord> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    const set = (col: string, v: unknown) => {
      params.push(v);
      sets.push(`${col} = $${params.length}`);
    };
    if (patch.name !== undefined) set('name', patch.name);
    if (patch.active !== undefined) set('active', patch.active);
    if (patch.rateLimitPerMinute !== undefined) set('rate_limit', patch.rateLimitPerMinute);
    if (patch.budget !== undefined) set('budget', patch.budget);
    if (patch.policy !== undefined) set('policy', JSON.stringify(patch.policy));
    if (sets.length === 0) throw new InputError('Nothing to update.');
    const rows = await this.db.query(`UPDATE api_keys SET ${sets.join(', ')}, updated_at = now() WHERE id = $1 RETURNING *`, params);
    if (!rows[0]) throw new NotFoundError(`Key not found: ${id}`);
    this.byHash.clear();
    return rowToKey(rows[0]);
  }

  /** Drops cached lookups (after a change made elsewhere). */
  invalidate(): void {
    this.byHash.clear();
  }
}
