/**
 * Bearer authentication and the per-key rate limit, as one onRequest hook for both lanes
 * (spec §5, §8.2). Runs before the body is read, so unauthenticated callers cost nothing. Once
 * the key is known, the rest of a request waits for the key's turn on the serving thread
 * (key-turns.ts), so one key's burst is not all answered ahead of another key's call.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeyStore } from '../../core/keys/key-store.js';
import type { RateLimiter } from '../../core/ratelimit/types.js';
import { AuthError, MESSAGES, RateLimitedError } from '../../core/errors.js';
import { KeyTurns } from './key-turns.js';

/** One line of turns per serving thread, shared by every lane (v1, v2, MCP): they share its event loop. */
const turns = new KeyTurns();

/** Sets the rate-limit headers the spec requires on every authenticated response. */
export function setRateHeaders(reply: FastifyReply, req: FastifyRequest): void {
  const rate = req.call.rate;
  if (!rate) return;
  reply.header('X-RateLimit-Limit', rate.limit);
  reply.header('X-RateLimit-Remaining', rate.remaining);
}

/** Builds the hook. */
export function authHook(keys: KeyStore, limiter: RateLimiter) {
  return async function authenticate(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = req.headers.authorization;
    if (typeof header !== 'string' || header.length === 0) throw new AuthError(MESSAGES.badAuthHeader);
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match) throw new AuthError(MESSAGES.badAuthHeader);
    const key = await keys.findByToken(match[1]!);
    if (!key || !key.active) throw new AuthError(MESSAGES.invalidKey);
    req.call.key = key;
    // The rest (rate limit, body, the route's work, the answer) waits for the key's turn.
    const turn = turns.take(key.id);
    if (turn) await turn;
    const rate = await limiter.hit(key.id, key.rateLimit);
    req.call.rate = rate;
    setRateHeaders(reply, req);
    if (!rate.allowed) {
      reply.header('Retry-After', rate.resetSeconds);
      throw new RateLimitedError(rate.resetSeconds);
    }
  };
}
