/**
 * File store contract: produced files (converted PDFs, screenshots…) kept on local disk behind
 * signed, expiring download URLs (spec §8.2: converted and merged PDFs are retained 24 hours).
 */

/** A stored file. */
export interface StoredFile {
  id: string;
  /** Absolute signed URL `${publicBaseUrl}/files/<id>?expires=<unix>&sig=<hex>`, valid until `expiresAt`. */
  url: string;
  expiresAt: Date;
  size: number;
  contentType: string;
}

/** What the download route serves for a valid signed URL. */
export interface OpenedFile {
  /** Absolute path of the file on disk (stream it; it may be large). */
  path: string;
  contentType: string;
  size: number;
  expiresAt: Date;
  /** A download name such as `<id>.pdf`, for `Content-Disposition`. */
  filename: string;
}

/** Stores produced files and signs their download URLs. */
export interface FileStore {
  /** Stores `data` under a new random id; retention defaults to 24 hours (spec §8.2). */
  put(data: Uint8Array, opts: { contentType: string; extension: string; retentionMs?: number }): Promise<StoredFile>;
  /**
   * Checks a download request (`GET /files/:id?expires=&sig=`) and returns the file to serve.
   * Throws `NotFoundError` for an unknown id, a bad signature or an expired link — the same
   * answer for all three, so a caller cannot probe which ids exist.
   */
  open(id: string, expires: string | number | undefined, sig: string | undefined): Promise<OpenedFile>;
}
