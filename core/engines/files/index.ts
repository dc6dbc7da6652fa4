/**
 * File store (design: "file store with expiring URLs"): produced files behind HMAC-signed,
 * expiring download URLs, swept after their retention (spec §8.2: 24 hours for PDFs). The bytes
 * live in an S3-compatible bucket when `FILES_S3_BUCKET` is set, so every instance can serve them
 * (issue 25), else under `<DATA_DIR>/files`.
 */
import type { EngineOptions } from '../options.js';
import type { FileStore } from './types.js';
import { createLocalFileStore } from './local-store.js';
import { createS3FileStore } from './s3-store.js';
import { s3Settings } from './s3-client.js';

export { DEFAULT_RETENTION_MS } from './signing.js';

/** Creates the configured file store and starts its sweeper (stopped by `close`). */
export function createFileStore(opts: EngineOptions): FileStore & { close(): Promise<void>; sweep(): Promise<number> } {
  const s3 = s3Settings(opts.env);
  return s3 ? createS3FileStore(opts, s3) : createLocalFileStore(opts);
}
