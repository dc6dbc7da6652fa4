/** Outbound HTTP engine contract (owned by the web lane). */

/** A request made on behalf of a plugin. */
export interface HttpRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** A JSON body is serialised and sent with `Content-Type: application/json`. */
  json?: unknown;
  body?: string | Uint8Array;
  /** Overall timeout in ms (connect + headers + body). */
  timeoutMs?: number;
  /** Maximum response body size in bytes. */
  maxBytes?: number;
  /** Maximum redirects to follow (0 = none). */
  maxRedirects?: number;
  /**
   * `true` for user-supplied URLs: checked by the SSRF guard at connect time. Provider base URLs
   * configured by the operator are trusted and pass `false`.
   */
  guard?: boolean;
  signal?: AbortSignal;
  /**
   * An HTTP proxy to go through (`http://[user:pass@]host:port`, operator-configured). With the
   * guard on, every hop's host is still checked here first, by its own addresses.
   */
  proxy?: string;
}

/** A fully read response. */
export interface HttpResponse {
  status: number;
  /** Final URL after redirects. */
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** Body decoded as text using the declared or sniffed charset. */
  text(): string;
  /** Body parsed as JSON; throws `SyntaxError` on garbage. */
  json<T = unknown>(): T;
}

/** A download written straight to a file (large inputs: nothing of the body is held in memory). */
export interface HttpDownloadRequest extends HttpRequest {
  /** Where the body goes (created or truncated); only a 2xx body is written. */
  file: string;
}

/** What a download received. */
export interface HttpDownload {
  status: number;
  /** Final URL after redirects. */
  url: string;
  headers: Record<string, string>;
  /** Bytes written to the file (decoded). */
  bytes: number;
}

/** Outbound HTTP with the SSRF guard. */
export interface HttpEngine {
  /**
   * Sends `req` and reads the whole (decoded) body into memory, within `maxBytes`; the body counts
   * in the service's in-flight byte budget while it is received (429 BUSY when it does not fit).
   * A user's file belongs in `download`.
   */
  request(req: HttpRequest): Promise<HttpResponse>;
  /**
   * Like `request`, but the body is written to `req.file` as it arrives, within `maxBytes`, and
   * counted in the service's in-flight byte budget while it is received (429 BUSY when it does not fit).
   */
  download(req: HttpDownloadRequest): Promise<HttpDownload>;
}
