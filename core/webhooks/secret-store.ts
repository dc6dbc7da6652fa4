/**
 * One webhook signing secret per API key (issue 25), kept in the service's store so every
 * instance signs with the same one. Created on first use; rotation replaces it at once (no
 * overlap: from the rotation on, attempts are signed with the new secret only).
 */
import type { Db } from '../storage/db.js';
import { NotFoundError } from '../errors.js';
import { newWebhookSecret } from './signing.js';

/** A key's secret and when it was made. */
export interface WebhookSecret {
  secret: string;
  createdAt: string;
}

/** Reads, creates and rotates signing secrets. */
export class WebhookSecrets {
  constructor(private readonly db: Db) {}

  /** The key's secret, created now when it has none. Throws NotFoundError for an unknown key. */
  async get(keyId: string): Promise<WebhookSecret> {
    const found = await this.read(keyId);
    if (found) return found;
    // Two callers racing on the first use agree on whichever insert won.
    await this.write(keyId, newWebhookSecret(), false);
    const made = await this.read(keyId);
    if (!made) throw new NotFoundError(`Key not found: ${keyId}`);
    return made;
  }

  /** Replaces the key's secret with a new one and returns it. */
  async rotate(keyId: string): Promise<WebhookSecret> {
    await this.write(keyId, newWebhookSecret(), true);
    const made = await this.read(keyId);
    if (!made) throw new NotFoundError(`Key not found: ${keyId}`);
    return made;
  }

  private async read(keyId: string): Promise<WebhookSecret | null> {
    const rows = await this.db.query('SELECT secret, created_at FROM webhook_secrets WHERE key_id = $1', [keyId]);
    return rows[0] ? { secret: rows[0].secret, createdAt: new Date(rows[0].created_at).toISOString() } : null;
  }

  private async write(keyId: string, secret: string, replace: boolean): Promise<void> {
    // Selecting from api_keys makes an unknown key insert nothing (a 404), not a foreign-key error.
    const onConflict = replace ? 'DO UPDATE SET secret = EXCLUDED.secret, created_at = now()' : 'DO NOTHING';
    await this.db.query(`INSERT INTO webhook_secrets (key_id, secret) SELECT id, $2 FROM api_keys WHERE id = $1 ON CONFLICT (key_id) ${onConflict}`, [keyId, secret]);
  }
}
