/**
 * A loopback fake of the S3 REST contract the file store uses (issue 25: tested against a local
 * S3-compatible server, nothing downloaded): path-style PUT, GET (with one `Range`), HEAD, DELETE
 * and ListObjectsV2 with continuation tokens, on one bucket. Every request's AWS SigV4
 * `Authorization` header is recomputed with `@smithy/signature-v4` from the fake's own credentials,
 * and a PUT's body is checked against its signed hash, so a wrong secret is a 403
 * `SignatureDoesNotMatch` as on a real store. Faults (a status for every request, a delay before
 * answering) let tests see how the service reads a broken store.
 */
import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';
import { serveLoopback } from './loopback.js';
import { readBody } from './fake-http.js';

/** One stored object. */
export interface FakeObject {
  body: Buffer;
  contentType: string;
  /** `x-amz-meta-*` headers, without the prefix. */
  meta: Record<string, string>;
  lastModified: Date;
}

/** A running fake S3 server. */
export interface FakeS3 {
  /** `http://127.0.0.1:<port>`: the `FILES_S3_ENDPOINT`. */
  url: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The bucket's objects by key (tests read and plant objects here). */
  objects: Map<string, FakeObject>;
  /** Every request answered: method, key (empty for the bucket itself), query and status. */
  requests: { method: string; key: string; query: Record<string, string>; status: number }[];
  /** Answers every request with this status (e.g. 503) until set back to undefined. */
  failWith: number | undefined;
  /** Waits this long before answering every request. */
  delayMs: number;
  /** Largest listing page, whatever `max-keys` asks (small values exercise continuation tokens). */
  maxKeys: number;
  close(): Promise<void>;
}

/** SHA-256 (or HMAC-SHA-256 with a secret) in the shape `@smithy/signature-v4` expects. */
class Sha256 {
  private readonly h;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', typeof secret === 'string' ? secret : Buffer.from(secret as Uint8Array));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.h.update(typeof data === 'string' ? data : Buffer.from(data as Uint8Array));
  }
  async digest(): Promise<Uint8Array> {
    return this.h.digest();
  }
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function sendXml(res: ServerResponse, status: number, xml: string, headOnly = false): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n${xml}`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(headOnly ? undefined : body);
}

function sendError(res: ServerResponse, status: number, code: string, message: string, headOnly: boolean): void {
  sendXml(res, status, `<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`, headOnly);
}

/** The decoded query of a raw request target (S3 clients encode spaces as %20, never `+`). */
function parseQuery(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of search.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const k = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
    out[k] = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1));
  }
  return out;
}

/** Parses `20260101T000000Z`. */
function amzDate(v: string | undefined): Date | undefined {
  const m = v ? /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(v) : null;
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : undefined;
}

/** Starts the fake with one bucket and one credential pair. */
export async function startFakeS3(opts: { bucket?: string; region?: string; accessKeyId?: string; secretAccessKey?: string } = {}): Promise<FakeS3> {
  const bucket = opts.bucket ?? 'produced-files';
  const region = opts.region ?? 'us-east-1';
  const accessKeyId = opts.accessKeyId ?? 'AKIAFAKEFAKEFAKE';
  const secretAccessKey = opts.secretAccessKey ?? 'fake-secret-key-for-tests';
  const signer = new SignatureV4({ service: 's3', region, credentials: { accessKeyId, secretAccessKey }, sha256: Sha256, uriEscapePath: false });
  const objects = new Map<string, FakeObject>();
  const state = { failWith: undefined as number | undefined, delayMs: 0, maxKeys: 1000 };
  const requests: FakeS3['requests'] = [];

  /** Why the request's signature is not ours, or undefined when it is. */
  async function authProblem(req: IncomingMessage, path: string, query: Record<string, string>, body: Buffer): Promise<[string, string] | undefined> {
    if (query['X-Amz-Algorithm'] !== undefined && req.headers.authorization === undefined) return presignProblem(req, path, query);
    const auth = req.headers.authorization ?? '';
    const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
    if (!m) return ['AccessDenied', 'Missing or malformed Authorization header.'];
    if (m[1] !== accessKeyId) return ['InvalidAccessKeyId', 'The AWS access key ID you provided does not exist in our records.'];
    const signingDate = amzDate(req.headers['x-amz-date'] as string | undefined);
    if (!signingDate) return ['AccessDenied', 'Missing x-amz-date.'];
    const headers: Record<string, string> = {};
    for (const name of m[4]!.split(';')) {
      const v = req.headers[name];
      if (v === undefined) return ['SignatureDoesNotMatch', `Signed header ${name} is missing.`];
      headers[name] = Array.isArray(v) ? v.join(',') : v;
    }
    const declared = headers['x-amz-content-sha256'];
    if (declared && /^[0-9a-f]{64}$/.test(declared) && createHash('sha256').update(body).digest('hex') !== declared) {
      return ['XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.'];
    }
    const [host, port] = (headers.host ?? '').split(':');
    const signed = await signer.sign(
      { method: req.method!, protocol: 'http:', hostname: host!, port: port ? Number(port) : undefined, path, query, headers, body: undefined } as unknown as HttpRequest,
      { signingDate, signingRegion: m[3] },
    );
    const ours = /Signature=([0-9a-f]{64})/.exec(signed.headers.authorization ?? '')?.[1];
    if (ours !== m[5]) return ['SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'];
    return undefined;
  }

  /** The same check for a presigned URL: the signature and its validity travel in the query. */
  async function presignProblem(req: IncomingMessage, path: string, query: Record<string, string>): Promise<[string, string] | undefined> {
    const cred = /^([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request$/.exec(query['X-Amz-Credential'] ?? '');
    const signingDate = amzDate(query['X-Amz-Date']);
    const expiresIn = Number(query['X-Amz-Expires']);
    if (!cred || !signingDate || !(expiresIn > 0) || !query['X-Amz-Signature']) return ['AccessDenied', 'Malformed presigned URL.'];
    if (cred[1] !== accessKeyId) return ['InvalidAccessKeyId', 'The AWS access key ID you provided does not exist in our records.'];
    if (signingDate.getTime() + expiresIn * 1000 < Date.now()) return ['AccessDenied', 'Request has expired'];
    const headers: Record<string, string> = {};
    for (const name of (query['X-Amz-SignedHeaders'] ?? '').split(';')) headers[name] = String(req.headers[name] ?? '');
    // The presigner hoisted its payload-hash header into the query: hand it back as that header.
    const { 'X-Amz-Signature': given, 'X-Amz-Content-Sha256': payload, ...rest } = query;
    if (payload) headers['X-Amz-Content-Sha256'] = payload;
    const [host, port] = (headers.host ?? '').split(':');
    const signed = await signer.presign({ method: req.method!, protocol: 'http:', hostname: host!, port: port ? Number(port) : undefined, path, query: rest, headers } as unknown as HttpRequest, { signingDate, expiresIn, signingRegion: cred[3] });
    if (signed.query?.['X-Amz-Signature'] !== given) return ['SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'];
    return undefined;
  }

  function list(res: ServerResponse, query: Record<string, string>): void {
    const prefix = query.prefix ?? '';
    const max = Math.min(Number(query['max-keys'] ?? 1000) || 1000, state.maxKeys);
    const after = query['continuation-token'] ? Buffer.from(query['continuation-token'], 'base64url').toString('utf8') : (query['start-after'] ?? '');
    const keys = [...objects.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
    const page = keys.slice(0, max);
    const truncated = keys.length > page.length;
    const contents = page
      .map((k) => {
        const o = objects.get(k)!;
        return `<Contents><Key>${xmlEscape(k)}</Key><LastModified>${o.lastModified.toISOString()}</LastModified><ETag>"${createHash('md5').update(o.body).digest('hex')}"</ETag><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join('');
    const next = truncated ? `<NextContinuationToken>${Buffer.from(page.at(-1)!, 'utf8').toString('base64url')}</NextContinuationToken>` : '';
    sendXml(
      res,
      200,
      `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${query['continuation-token'] ? `<ContinuationToken>${query['continuation-token']}</ContinuationToken>` : ''}${next}${contents}</ListBucketResult>`,
    );
  }

  function get(req: IncomingMessage, res: ServerResponse, o: FakeObject, headOnly: boolean): void {
    const headers: Record<string, string | number> = { 'content-type': o.contentType, 'last-modified': o.lastModified.toUTCString(), 'accept-ranges': 'bytes', etag: `"${createHash('md5').update(o.body).digest('hex')}"` };
    for (const [k, v] of Object.entries(o.meta)) headers[`x-amz-meta-${k}`] = v;
    const r = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (r && !headOnly) {
      const start = Number(r[1]);
      const end = Math.min(r[2] ? Number(r[2]) : o.body.length - 1, o.body.length - 1);
      if (start >= o.body.length) return sendError(res, 416, 'InvalidRange', 'The requested range is not satisfiable.', false);
      res.writeHead(206, { ...headers, 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${o.body.length}` });
      return void res.end(o.body.subarray(start, end + 1));
    }
    res.writeHead(200, { ...headers, 'content-length': o.body.length });
    res.end(headOnly ? undefined : o.body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, record: (status: number) => void): Promise<void> {
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const path = q < 0 ? target : target.slice(0, q);
    const query = parseQuery(q < 0 ? '' : target.slice(q + 1));
    const head = req.method === 'HEAD';
    const body = (await readBody(req)).raw;
    if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
    if (state.failWith) {
      record(state.failWith);
      return sendError(res, state.failWith, state.failWith === 503 ? 'SlowDown' : 'InternalError', 'The fake store was told to fail.', head);
    }
    const problem = await authProblem(req, path, query, body);
    if (problem) {
      record(403);
      return sendError(res, 403, problem[0], problem[1], head);
    }
    const [, b, ...rest] = path.split('/');
    const key = rest.map(decodeURIComponent).join('/');
    if (b !== bucket) {
      record(404);
      return sendError(res, 404, 'NoSuchBucket', 'The specified bucket does not exist.', head);
    }
    if (!key && req.method === 'GET' && query['list-type'] === '2') return record(200), list(res, query);
    const o = objects.get(key);
    if (req.method === 'PUT' && key) {
      const meta: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (k.startsWith('x-amz-meta-') && typeof v === 'string') meta[k.slice(11)] = v;
      objects.set(key, { body, contentType: String(req.headers['content-type'] ?? 'binary/octet-stream'), meta, lastModified: new Date() });
      record(200);
      res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"`, 'content-length': 0 });
      return void res.end();
    }
    if (req.method === 'DELETE' && key) {
      objects.delete(key);
      record(204);
      res.writeHead(204);
      return void res.end();
    }
    if ((req.method === 'GET' || head) && key) {
      if (!o) return record(404), sendError(res, 404, 'NoSuchKey', 'The specified key does not exist.', head);
      record(200);
      return get(req, res, o, head);
    }
    record(400);
    sendError(res, 400, 'NotImplemented', 'The fake does not implement this request.', head);
  }

  const server = await serveLoopback((req, res) => {
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const record = (status: number) => {
      const [, , ...rest] = (q < 0 ? target : target.slice(0, q)).split('/');
      requests.push({ method: req.method ?? '', key: rest.map(decodeURIComponent).join('/'), query: parseQuery(q < 0 ? '' : target.slice(q + 1)), status });
    };
    handle(req, res, record).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, 'InternalError', String(err), req.method === 'HEAD');
      else res.destroy();
    });
  });

  return {
    url: server.url,
    bucket,
    region,
    accessKeyId,
    secretAccessKey,
    objects,
    requests,
    get failWith() {
      return state.failWith;
    },
    set failWith(v) {
      state.failWith = v;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v) {
      state.delayMs = v;
    },
    get maxKeys() {
      return state.maxKeys;
    },
    set maxKeys(v) {
      state.maxKeys = v;
    },
    close: () => server.close(),
  };
}

/** The `FILES_S3_*` settings that point the file store at `fake` (a key prefix keeps tests apart). */
export function fakeS3Env(fake: FakeS3, prefix = ''): Record<string, string> {
  return {
    FILES_S3_BUCKET: fake.bucket,
    FILES_S3_ENDPOINT: fake.url,
    FILES_S3_REGION: fake.region,
    FILES_S3_ACCESS_KEY_ID: fake.accessKeyId,
    FILES_S3_SECRET_ACCESS_KEY: fake.secretAccessKey,
    FILES_S3_FORCE_PATH_STYLE: 'true',
    FILES_S3_PREFIX: prefix,
  };
}
