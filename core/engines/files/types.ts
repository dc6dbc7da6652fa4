/** File store contract: produced files behind signed, expiring URLs (owned by the documents lane). */

/** A stored file. */
export interface StoredFile {
  id: string;
  /** Absolute signed URL under `PUBLIC_BASE_URL`, valid until `expiresAt`. */
  url: string;
  expiresAt: Date;
  size: number;
  contentType: string;
}

/** Stores produced files and signs their download URLs. */
export interface FileStore {
  put(data: Uint8Array, opts: { contentType: string; extension: string; retentionMs?: number }): Promise<StoredFile>;
}
