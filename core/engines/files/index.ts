/**
 * File store (design: "file store with expiring URLs"): produced files behind HMAC-signed,
 * expiring download URLs, swept after their retention (spec §8.2: 24 hours for PDFs). The bytes
 * live in an S3-compatible bucket when `FILES_S3_BUCKET` is set, so every instance can serve them
 * (issue 25), else under `<DATA_DIR>/files`.
 */
import type { EngineOptions } from '../options.js';
import type { FileStore } from './types.js';
import { createLocalFileStore } from './local-store.js';
import { s3Settings, type S3Settings } from './s3-settings.js';

export { DEFAULT_RETENTION_MS } from './signing.js';

type ClosableFileStore = FileStore & { close(): Promise<void>; sweep(): Promise<number> };

/** Creates the configured file store and starts its sweeper (stopped by `close`). */
export function createFileStore(opts: EngineOptions): ClosableFileStore {
  const s3 = s3Settings(opts.env);
  return s3 ? bucketStore(opts, s3) : createLocalFileStore(opts);
}

/**
 * The bucket store, its module imported when the store is made instead of with this one: the AWS
 * SDK it loads is ~1 MB of modules (~0.3 s of CPU), which every start on local files paid
 * (every test process with a server, too). A failed import or set-up is each call's error.
 */
function bucketStore(opts: EngineOptions, s3: S3Settings): ClosableFileStore {
  const store = import('./s3-store.js').then((m) => m.createS3FileStore(opts, s3));
  store.catch(() => {});
  return {
    sweep: async () => (await store).sweep(),
    put: async (data, o) => (await store).put(data, o),
    open: async (id, expires, sig) => (await store).open(id, expires, sig),
    delete: async (id) => (await store).delete(id),
    list: async () => (await store).list!(),
    owned: async () => (await store).owned(),
    close: async () => (await store.catch(() => undefined))?.close(),
  };
}
