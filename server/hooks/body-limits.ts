/**
 * Request-body limits (issue 18 finding 3): 16 concurrent 95 MB bodies to `/api/v1/scrape` once
 * pushed the process to 2 GB. Two defences:
 * - per route: 1 MB by default, large only where files travel (conversion, merging, extraction,
 *   v2 run whose capabilities take base64 files, MCP whose tools reach the same), moderate for code;
 * - per process: a budget of bytes being received and held at once, across all requests (shared
 *   with the HTTP engine's URL downloads, issue 24).
 *   A body that does not fit is refused at once as a free 429 BUSY (spec §7.2 leaves the service's
 *   own overload status open; BUSY is the documented code for a full queue), with Retry-After;
 * - per key: a share of that budget (issue 24: one key's flood of megabyte bodies could hold all
 *   of it and shut every other key out), refused the same way with a text that names the key.
 * All three are decided from the headers before a byte of the body is read (a body without a
 * length is counted as it arrives).
 */
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { PayloadTooLargeError } from '../../core/errors.js';
import { bytesBusy as busy, type ByteBudget } from '../../core/engines/http/byte-budget.js';
import { BusyError } from '../../core/errors.js';
import { KeyByteBudgets } from './key-byte-budgets.js';
import type { ServiceSettings } from '../../core/config.js';

/** Routes where files travel in the body (base64 documents, images, audio, video). */
const FILE_ROUTES = new Set([
  '/api/v1/convert-to-pdf',
  '/api/v1/merge-pdfs',
  '/api/v1/extract-document',
  '/api/v1/extract-image',
  '/api/v1/extract-audio',
  '/api/v1/extract-video',
  '/api/v1/doc-to-text',
  '/api/v1/trim-video',
  '/api/v1/read-pdf-metadata',
  '/api/v1/write-pdf-metadata',
  '/api/v2/run',
  '/api/v2/jobs',
  '/mcp',
]);
const CODE_ROUTES = new Set(['/api/v1/run-js-code', '/api/v1/run-python-code']);

/** The body limit a route gets: its own if it set one, else by what travels through it. */
export function bodyLimitFor(url: string, settings: Pick<ServiceSettings, 'bodyLimitBytes' | 'fileBodyLimitBytes' | 'codeBodyLimitBytes'>): number {
  const path = url.replace(/\/+$/, '');
  if (FILE_ROUTES.has(path)) return settings.fileBodyLimitBytes;
  if (CODE_ROUTES.has(path)) return settings.codeBodyLimitBytes;
  return settings.bodyLimitBytes;
}

/** The 413 text: what was refused and the limit, so a client knows what to change. */
export function tooLargeMessage(limit: number): string {
  return `Request body is too large: this route accepts at most ${limit} bytes.`;
}

/** The 429 text when one key's bodies arriving at once would pass its share of the budget. */
export const KEY_BYTES_BUSY_TEXT = 'This key is sending too much data at once. Please retry once its other requests are done.';

/** The 429 for a key past its share. */
function keyBusy(): BusyError {
  return new BusyError(KEY_BYTES_BUSY_TEXT);
}

/** Bytes of request bodies (and URL downloads, core/engines/http) the process holds at once. */
export { ByteBudget as BodyBudget } from '../../core/engines/http/byte-budget.js';

/**
 * Installs both defences on the root app: a per-route `bodyLimit` (set as each route is
 * registered, so it must run before the lanes are) and the process-wide budget. A body's bytes
 * are held from the moment they arrive until the response is closed (its parsed form lives that
 * long), and given back exactly once however the call ends.
 */
export function installBodyLimits(app: FastifyInstance, settings: ServiceSettings, budget: ByteBudget): void {
  const perKey = new KeyByteBudgets(settings.bodyBytesPerKeyMax);
  app.addHook('onRoute', (route: RouteOptions) => {
    route.bodyLimit ??= bodyLimitFor(route.url ?? '', settings);
  });

  app.addHook('preParsing', async (req: FastifyRequest, reply, payload) => {
    const limit = req.routeOptions.bodyLimit ?? settings.bodyLimitBytes;
    const declared = Number(req.headers['content-length']);
    // A declared length past the route's limit is Fastify's own 413, before any byte is read.
    if (Number.isFinite(declared) && declared > limit) throw new PayloadTooLargeError(tooLargeMessage(limit));
    // Keyless scopes (admin, console, files) share the instance's budget only.
    const keyId = req.call?.key?.id;
    let held = 0;
    const release = () => {
      budget.give(held);
      if (keyId) perKey.give(keyId, held);
      held = 0;
    };
    reply.raw.once('close', release);
    /** Takes `n` bytes from the key's share and the instance's budget, or throws the 429 of the one that is full. */
    const take = (n: number): BusyError | undefined => {
      if (keyId && !perKey.take(keyId, n)) return keyBusy();
      if (!budget.take(n)) {
        if (keyId) perKey.give(keyId, n);
        return busy();
      }
      held += n;
      return undefined;
    };
    if (Number.isFinite(declared) && declared > 0) {
      const refused = take(declared);
      if (refused) {
        reply.header('Retry-After', 1);
        throw refused;
      }
      return payload;
    }
    // No length given (chunked): hold the bytes as they arrive.
    let received = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done: TransformCallback) {
        received += chunk.length;
        (counter as unknown as { receivedEncodedLength: number }).receivedEncodedLength = received;
        if (received > limit) return done(new PayloadTooLargeError(tooLargeMessage(limit)));
        const refused = take(chunk.length);
        if (refused) {
          reply.header('Retry-After', 1);
          return done(refused);
        }
        done(null, chunk);
      },
    });
    payload.on('error', (err) => counter.destroy(err));
    return payload.pipe(counter);
  });
}
