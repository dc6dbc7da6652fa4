/**
 * The S3 side of the file store: its settings, one client (the AWS SDK, which speaks to AWS S3 and
 * to S3-compatible stores such as MinIO, Cloudflare R2 or Ceph alike) and how its failures read to
 * a caller. Produced files must be reachable from every instance (issue 25, "The engine"), so a
 * bucket shared by all of them holds the bytes and the metadata.
 */
import { S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { NotFoundError, UpstreamError } from '../../errors.js';
import { GONE } from './signing.js';
import type { S3Settings } from './s3-settings.js';

export { s3Settings, type S3Settings } from './s3-settings.js';

/** One client for the whole instance (it pools its connections). */
export function createS3Client(s: S3Settings): S3Client {
  return new S3Client({
    region: s.region,
    endpoint: s.endpoint,
    forcePathStyle: s.forcePathStyle,
    credentials: s.credentials,
    maxAttempts: 3,
    // Checksums only where S3 demands them: several S3-compatible stores reject the newer trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: Math.min(s.timeoutMs, 10_000), socketTimeout: s.timeoutMs, httpAgent: { keepAlive: true, maxSockets: 64 }, httpsAgent: { keepAlive: true, maxSockets: 64 } },
  });
}

/** True for the store's "no such object" answers. */
export function isMissing(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  // Not any 404: a missing bucket (`NoSuchBucket`) is a misconfigured store, not a missing file.
  return err.name === 'NoSuchKey' || err.name === 'NotFound';
}

const AUTH = new Set(['SignatureDoesNotMatch', 'InvalidAccessKeyId', 'AccessDenied', 'InvalidToken', 'ExpiredToken', 'AuthorizationHeaderMalformed', 'CredentialsProviderError']);

/**
 * A store failure as the catalogue's 502: the public text says what failed, the cause (the SDK's
 * error with the store's code) goes to the log through `cause`. A missing object is the usual 404.
 */
export function storeError(err: unknown, action: string): Error {
  if (err instanceof NotFoundError || err instanceof UpstreamError) return err;
  if (isMissing(err)) return new NotFoundError(GONE);
  const name = (err as { name?: string } | undefined)?.name ?? '';
  if (AUTH.has(name)) return new UpstreamError(`File storage refused the service's credentials while trying to ${action}. Please contact support.`, { cause: err });
  return new UpstreamError(`File storage is unavailable: could not ${action}. Please try again later.`, { cause: err });
}
