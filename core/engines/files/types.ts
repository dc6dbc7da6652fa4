/**
 * File store contract: produced files (converted PDFs, screenshots…) kept on local disk or in an
 * S3-compatible bucket behind signed, expiring download URLs (spec §8.2: converted and merged PDFs
 * are retained 24 hours).
 */
import type { Readable } from 'node:stream';

/** Expiry (unix seconds, 9999-12-31T23:59:59Z) of a permanent file with no retention cap: a signed URL always names one. */
export const PERMANENT_EXPIRES = 253_402_300_799;

/** A stored file. */
export interface StoredFile {
  id: string;
  /** Absolute signed URL `${publicBaseUrl}/files/<id>?expires=<unix>&sig=<hex>`, valid until `expiresAt`. */
  url: string;
  expiresAt: Date;
  size: number;
  contentType: string;
}

/** An inclusive byte range of a file, as an HTTP `Range` header names one. */
export interface ByteRange {
  start: number;
  end: number;
}

/** What the download route serves for a valid signed URL. */
export interface OpenedFile {
  /** Absolute path of the file when it is on this machine's disk; absent when it lives in a bucket. */
  path?: string;
  /** Streams the bytes (all, or one range): files may be large, so the route never buffers them. */
  stream(range?: ByteRange): Promise<Readable>;
  /** Reads the whole file into memory: only for small files (an image to inline, a page to extract). */
  bytes(): Promise<Buffer>;
  contentType: string;
  size: number;
  expiresAt: Date;
  /** A download name such as `<id>.pdf`, for `Content-Disposition`. */
  filename: string;
}

/** Stores produced files and signs their download URLs. */
export interface FileStore {
  /**
   * Stores `data` under a new random id; retention defaults to 24 hours (spec §8.2). `permanent`
   * keeps the file until it is deleted or `FILES_MAX_RETENTION_MS` ends it (generated images a
   * caller asked to keep, spec §4.7); its URL then carries the far expiry {@link PERMANENT_EXPIRES}.
   */
  put(data: Uint8Array, opts: PutOptions): Promise<StoredFile>;
  /**
   * Checks a download request (`GET /files/:id?expires=&sig=`) and returns the file to serve.
   * Throws `NotFoundError` for an unknown id, a bad signature or an expired link — the same
   * answer for all three, so a caller cannot probe which ids exist.
   */
  open(id: string, expires: string | number | undefined, sig: string | undefined): Promise<OpenedFile>;
  /**
   * Deletes a stored file before its time (an operator removing content, e.g. a permanent image);
   * its links answer 404 from then on. False when there is no such file.
   */
  delete(id: string): Promise<boolean>;
  /** The files held now (not yet expired), newest expiry first: what an operator may delete. */
  list?(): Promise<ListedFile[]>;
  /**
   * The files stored with an `owner`, for the owner's sweep of files whose record is gone (a job
   * input whose job row was deleted without its file).
   */
  owned(): Promise<OwnedFile[]>;
}

/** How {@link FileStore.put} keeps a file. */
export interface PutOptions {
  contentType: string;
  /** One short lowercase alphanumeric token (`pdf`, `json`…), any such token is safe. */
  extension: string;
  retentionMs?: number;
  permanent?: boolean;
  /**
   * The record the file lives exactly as long as (a job id, for a job's input): no retention and
   * no `FILES_MAX_RETENTION_MS` ends it, since its record may still need it; the record's owner
   * deletes it with the record, and {@link FileStore.owned} finds it should the record go alone.
   */
  owner?: string;
}

/** A file kept for a record, as {@link FileStore.owned} lists it. */
export interface OwnedFile {
  id: string;
  owner: string;
}

/** A stored file as listed to an operator (no signed URL: listing grants no download). */
export interface ListedFile {
  id: string;
  contentType: string;
  size: number;
  expiresAt: Date;
}
