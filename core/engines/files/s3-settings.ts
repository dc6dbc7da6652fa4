/**
 * The file store's bucket settings (`FILES_S3_*`), apart from the client (s3-client.ts) so that
 * reading them does not load the AWS SDK: a deployment on local files never needs it.
 */
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
