/**
 * Work a key causes counts against that key, even when it is refused (issue 24): each key may have
 * KEY_REQUESTS_IN_FLIGHT_MAX requests in progress on this instance, and a request with a large body
 * refused for its input (a bomb, an invalid file: 400, or 413) keeps its place for
 * KEY_REFUSAL_HOLD_MS after its answer. Receiving, parsing and refusing a 1.3 MB office bomb is
 * free for the caller but not for the instance: a key that only sends such bodies now gets at most
 * MAX of them looked at per hold time, and a free 429 BUSY for the rest, while a client whose calls
 * succeed keeps all its places. Small refused bodies cost next to nothing to refuse (the rate limit
 * bounds them), so a client correcting its input field by field is not held back.
 *
 * Decided in a root `preParsing` hook: it runs after every lane's authentication (an `onRequest`
 * hook of the lane's scope) and before a byte of the body is read, so a refused body is never
 * parsed. A request past the count waits up to BUSY_WAIT_MS for a place before its 429: a client a
 * little over its count is served late rather than refused, and one that ignores Retry-After is
 * answered at the pace its places free instead of as fast as it can send (answering at once let
 * the bench's attacker loop on 429s, each still a 1.3 MB body received and dropped).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BusyError } from '../../core/errors.js';
import type { ServiceSettings } from '../../core/config.js';
import { KeyRequestCounts } from './key-request-counts.js';

/** Statuses of a call refused for what it sent: its place is held a while after the answer. */
const REFUSED_FOR_INPUT = new Set([400, 413]);
/** Refused bodies at least this large are held (a body of unknown length too): below it, refusing is cheap. */
export const HELD_FROM_BYTES = 64 * 1024;
/** How long a request past its key's count waits for a place before its 429. */
export const BUSY_WAIT_MS = 1000;

/** The 429 text: what is limited and how a client gets its places back. */
export function keyBusyMessage(max: number, holdMs: number): string {
  const hold = holdMs > 0 ? ` (a large request refused for its input counts for ${holdMs / 1000} s after its answer)` : '';
  return `This key has too many requests in progress on this server: at most ${max} at once${hold}. Please retry once some of them are done.`;
}

/** The body's announced size: 0 without one, Infinity when it comes without a length (chunked). */
function bodyBytes(req: FastifyRequest): number {
  if (req.headers['transfer-encoding'] !== undefined) return Infinity;
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > 0 ? length : 0;
}

/** Installs the count on the root app; keyless scopes (admin, console, files) are not counted. */
export function installKeyInFlightLimit(app: FastifyInstance, settings: Pick<ServiceSettings, 'keyRequestsInFlightMax' | 'keyRefusalHoldMs'>): void {
  const { keyRequestsInFlightMax: max, keyRefusalHoldMs: holdMs } = settings;
  if (max === 0) return;
  const counts = new KeyRequestCounts(max);
  const message = keyBusyMessage(max, holdMs);
  const retryAfter = Math.max(1, Math.ceil(holdMs / 1000));

  app.addHook('preParsing', async (req, reply, payload) => {
    const keyId = req.call?.key?.id;
    if (!keyId) return payload;
    const held = holdMs > 0 && bodyBytes(req) >= HELD_FROM_BYTES;
    let holding = false;
    let closed = false;
    // Made only for a request that has to wait for a place: an AbortController, and the abort
    // every close fired on it, cost a few per cent of each refused request's serving-thread CPU
    // (bench:abuse's made-up ids).
    let left: AbortController | undefined;
    /** Gives the place back with the answer, or after the hold when a large body was refused for its input. */
    const release = () => {
      if (held && REFUSED_FOR_INPUT.has(reply.statusCode)) setTimeout(() => counts.give(keyId), holdMs).unref();
      else counts.give(keyId);
    };
    reply.raw.once('close', () => {
      closed = true;
      left?.abort();
      if (holding) release();
    });
    holding = counts.take(keyId);
    if (!holding) {
      left = new AbortController();
      holding = await counts.wait(keyId, BUSY_WAIT_MS, left.signal);
    }
    // A place handed over as the client left: the close listener ran before `holding` was set.
    if (holding && closed) release();
    if (!holding) {
      reply.header('Retry-After', retryAfter);
      throw new BusyError(message);
    }
    return payload;
  });
}
