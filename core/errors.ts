/**
 * The error catalogue (design: "Errors"). Every failure that reaches a client is one of these
 * classes; public texts are the spec's strings word for word (spec §5, §7). Causes go to the log
 * only, through `cause`, never into the response.
 */

/** Stable v2 failure codes (spec §2.3, §7.2) with the HTTP status each one maps to. */
export const ERROR_CODES = {
  INVALID_INPUT: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_CREDITS: 403,
  BUDGET_EXCEEDED: 403,
  PROVIDER_NOT_ALLOWED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  BUSY: 429,
  NOT_CONFIGURED: 500,
  PROVIDER_AUTH_FAILED: 500,
  OPERATION_FAILED: 500,
  CODE_EXECUTION_ERROR: 500,
  INTERNAL: 500,
  UPSTREAM_ERROR: 502,
  UPSTREAM_RATE_LIMITED: 503,
  PROVIDER_OUT_OF_CREDITS: 503,
  SHUTTING_DOWN: 503,
} as const;

/** One of the documented v2 failure codes. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The spec's fixed public messages (spec §5, §7.1). */
export const MESSAGES = {
  invalidKey: 'API key is invalid or missing.',
  badAuthHeader: 'Invalid or missing Authorization header',
  insufficientCredits: 'Insufficient credits. Please top up your account.',
  providerNotAllowed: 'Provider not allowed for this API key',
  notConfigured: 'Service not configured. Please contact support.',
  providerAuthFailed: 'Service authentication failed. Please contact support.',
  upstreamRateLimited: 'Rate limit exceeded. Please try again later.',
  invalidJson: 'Invalid JSON body.',
  internal: 'An unexpected server error occurred.',
} as const;

/** Base class of every catalogue error: a public message, a stable code and its HTTP status. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra public fields a lane may add to the body (e.g. `retryAfter`). */
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    // A refusal (4xx) answers the caller and is logged, if at all, by its code: its stack names
    // nobody's bug, and capturing it through Fastify's hooks was the largest single cost of a
    // rate-limited request on the serving thread (bench:abuse's made-up ids). 5xx keep theirs.
    const limit = Error.stackTraceLimit;
    if (ERROR_CODES[code] < 500) Error.stackTraceLimit = 0;
    try {
      super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = new.target.name;
    this.code = code;
    this.status = ERROR_CODES[code];
    this.details = options?.details;
  }
}

/** 400: the caller's input is wrong; the message says what and how to fix it. */
export class InputError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super('INVALID_INPUT', message, options);
  }
}

/**
 * 400 from one provider of a capability that cannot honour an option the caller set (e.g. a
 * screenshot provider without clipping): the next provider is tried, and only when none can is
 * this the caller's answer.
 */
export class UnsupportedOptionError extends InputError {}

/** 403: a console request that is not the signed-in page's own (no CSRF token, another site's form). */
export class ForbiddenError extends ServiceError {
  constructor(message: string) {
    super('FORBIDDEN', message);
  }
}

/** 401: missing, malformed, unknown or inactive API key (spec §5.2). */
export class AuthError extends ServiceError {
  constructor(message: string = MESSAGES.invalidKey) {
    super('UNAUTHORIZED', message);
  }
}

/** 403: the key cannot pay for the operation (spec §5.3). */
export class InsufficientCreditsError extends ServiceError {
  constructor(code: 'INSUFFICIENT_CREDITS' | 'BUDGET_EXCEEDED' = 'INSUFFICIENT_CREDITS') {
    super(code, MESSAGES.insufficientCredits);
  }
}

/** 403: the key's policy forbids the provider or capability (spec §5.4). */
export class ProviderNotAllowedError extends ServiceError {
  constructor() {
    super('PROVIDER_NOT_ALLOWED', MESSAGES.providerNotAllowed);
  }
}

/** 404: nothing found (unknown id, no subtitles, expired file…). */
export class NotFoundError extends ServiceError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

/** 413: input larger than the documented limit. */
export class PayloadTooLargeError extends ServiceError {
  constructor(message: string) {
    super('PAYLOAD_TOO_LARGE', message);
  }
}

/** 429: the key's own rate limit (service side) is exhausted. */
export class RateLimitedError extends ServiceError {
  constructor(retryAfterSeconds: number) {
    super('RATE_LIMITED', 'Rate limit exceeded. Please try again later.', { details: { retryAfter: retryAfterSeconds } });
  }
}

/** 429: a bounded queue (office pool, browser pool, sandboxes) is full. */
export class BusyError extends ServiceError {
  constructor(message: string) {
    super('BUSY', message);
  }
}

/** 500: the provider behind the operation has no key or base URL configured. */
export class NotConfiguredError extends ServiceError {
  constructor(options?: { cause?: unknown }) {
    super('NOT_CONFIGURED', MESSAGES.notConfigured, options);
  }
}

/** 500: the provider rejected our credentials. */
export class ProviderAuthError extends ServiceError {
  constructor(options?: { cause?: unknown }) {
    super('PROVIDER_AUTH_FAILED', MESSAGES.providerAuthFailed, options);
  }
}

/** 500: an operation failed with a spec-shaped message such as `Failed to convert to PDF: …`. */
export class OperationFailedError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('OPERATION_FAILED', message, options);
  }
}

/** 502: the upstream is unreachable, timed out, or answered garbage. */
export class UpstreamError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('UPSTREAM_ERROR', message, options);
  }
}

/** 503: the upstream rate-limited us (spec §7.1); `retryAfter` is the provider's hint, if any. */
export class UpstreamRateLimitError extends ServiceError {
  constructor(options?: { cause?: unknown; retryAfter?: string }) {
    const seconds = Number(options?.retryAfter);
    super('UPSTREAM_RATE_LIMITED', MESSAGES.upstreamRateLimited, { cause: options?.cause, details: Number.isFinite(seconds) && seconds > 0 ? { retryAfter: Math.ceil(seconds) } : undefined });
  }
}

/**
 * 503: the operator's account at the provider is out of credits (HTTP 402 upstream). The caller
 * can do nothing about it but retry later; the next provider of a capability is tried, and the
 * operator is told in the log.
 */
export class ProviderOutOfCreditsError extends ServiceError {
  constructor(options?: { cause?: unknown }) {
    super('PROVIDER_OUT_OF_CREDITS', 'The service is temporarily unavailable. Please try again later.', options);
  }
}

/** 500: anything unexpected; the public text never carries the cause. */
export class InternalError extends ServiceError {
  constructor(message: string = MESSAGES.internal, options?: { cause?: unknown }) {
    super('INTERNAL', message, options);
  }
}

/** 503: the server is draining for shutdown. */
export class ShuttingDownError extends ServiceError {
  constructor() {
    super('SHUTTING_DOWN', 'The service is shutting down. Please retry.');
  }
}

/**
 * 500 with the code-execution error object `{ name, value, traceback }` (spec §4.8, §2.2):
 * the v1 lane writes `error` as that object instead of a string.
 */
export class CodeExecutionError extends ServiceError {
  readonly execution: { name: string; value: string; traceback: string };

  constructor(name: string, value: string, traceback: string) {
    super('CODE_EXECUTION_ERROR', `${name}: ${value}`);
    this.execution = { name, value, traceback };
  }
}

/** Turns anything thrown into a catalogue error; unknown errors become `InternalError`. */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  return new InternalError(MESSAGES.internal, { cause: err });
}

/** Errors after which the provider chain may try the next provider (design principle 5). */
export function isFallbackable(err: ServiceError): boolean {
  return (
    err instanceof UpstreamError ||
    err instanceof UpstreamRateLimitError ||
    err instanceof ProviderOutOfCreditsError ||
    err instanceof UnsupportedOptionError ||
    err instanceof NotConfiguredError ||
    err instanceof ProviderAuthError ||
    err instanceof BusyError
  );
}
