/**
 * The S3 side of the file store: its settings, one client (the AWS SDK, which speaks to AWS S3 and
 * to S3-compatible stores such as MinIO, Cloudflare R2 or Ceph alike) and how its failures read to
 * a caller. Produced files must be reachable from every instance (issue 25, "The engine"), so a
 * bucket shared by all of them holds the bytes and the metadata.
 */
import { S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { NotFoundError, UpstreamError } from '../../errors.js';
import { GONE } from './signing.js';

/** The file store's bucket settings, read from `FILES_S3_*`. */
export interface S3Settings {
  bucket: string;
  /** Object key prefix (e.g. `files/`); only keys below it are ever listed, swept or deleted. */
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Idle time of one store request before it fails (connect, headers, each chunk). */
  timeoutMs: number;
  /** Hand out presigned bucket URLs instead of the service's own links (files kept at most 7 days). */
  presignedLinks: boolean;
}

/** The bucket settings, or undefined when `FILES_S3_BUCKET` is unset (files stay in `DATA_DIR`). */
export function s3Settings(env: Record<string, string | undefined>): S3Settings | undefined {
  const bucket = env.FILES_S3_BUCKET?.trim();
  if (!bucket) return undefined;
  const endpoint = env.FILES_S3_ENDPOINT?.trim() || undefined;
  const accessKeyId = env.FILES_S3_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.FILES_S3_SECRET_ACCESS_KEY?.trim();
  const pathStyle = env.FILES_S3_FORCE_PATH_STYLE?.trim().toLowerCase();
  const timeout = Number(env.FILES_S3_TIMEOUT_MS);
  return {
    bucket,
    prefix: env.FILES_S3_PREFIX?.trim() ?? '',
    endpoint,
    region: env.FILES_S3_REGION?.trim() || 'us-east-1',
    // Most self-hosted stores (MinIO, Ceph) answer only path-style requests; AWS prefers virtual hosts.
    forcePathStyle: pathStyle ? pathStyle === 'true' || pathStyle === '1' : endpoint !== undefined,
    // Without both keys the SDK's own chain applies (AWS_* variables, shared files, an instance role).
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    timeoutMs: timeout > 0 ? timeout : 30_000,
    presignedLinks: ['true', '1'].includes(env.FILES_S3_PRESIGNED_LINKS?.trim().toLowerCase() ?? ''),
  };
}

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
