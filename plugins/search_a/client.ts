/**
 * Client of the search_a API (Serper-compatible, contracts §1): `POST {base}/{endpoint}` with the
 * key in `X-API-KEY` and the parameters as a JSON body, through the SDK's `providerRequest` (base
 * URL, timeout and the standard fault mapping of spec §7.1). search_a's one special case: its 400
 * `Not enough credits` is our account at the provider, not the caller's input, so it reads like
 * a 402 (a fallback-able 503 logged for the operator).
 */
import { ProviderOutOfCreditsError, providerRequest, type RunContext } from '../../core/sdk.js';
import { checkLocation } from '../../core/catalogue.js';

/** The provider endpoints (one path segment each, contracts §1 "Base URL"). */
export type SerperEndpoint = 'search' | 'news' | 'places' | 'maps' | 'autocomplete' | 'images' | 'videos' | 'shopping' | 'scholar' | 'patents';

/** The longest SEARCH_A_TIMEOUT_MS accepted; also bounds the endpoints' executor timeout. */
export const MAX_TIMEOUT_MS = 60_000;

/**
 * How the provider reports an exhausted account (contracts §1 "Errors": 400 `Not enough credits`).
 * Matched narrowly so a 400 about a `credits`-like parameter stays the caller's input error.
 */
const OUT_OF_CREDITS = /\b(not enough|insufficient|out of) credits?\b/i;

/** Calls one endpoint and returns the parsed JSON payload (checked by the executor against the output schema). */
export async function serperCall(ctx: RunContext<any, any>, endpoint: SerperEndpoint, body: Record<string, unknown>): Promise<unknown> {
  // A location not on the list in use is the caller's 400 (with the closest names), before any upstream call.
  await checkLocation(ctx, typeof body.location === 'string' ? body.location : undefined);
  const { data } = await providerRequest(ctx, {
    path: `/${endpoint}`,
    method: 'POST',
    json: body,
    auth: { header: 'x-api-key' },
    mapError: (res, message) => {
      if (res.status !== 400 || !OUT_OF_CREDITS.test(message)) return undefined;
      ctx.log.error({ provider: ctx.provider, message }, 'the search_a account has run out of credits: top it up with the provider');
      return new ProviderOutOfCreditsError({ cause: new Error(`search_a HTTP 400: ${message}`) });
    },
  });
  return data;
}

/** The payload without the provider's own credit count, which would read like ours (spec §8.1). */
export function withoutCredits(payload: unknown): unknown {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return payload;
  const { credits: _credits, ...rest } = payload as Record<string, unknown>;
  return rest;
}
