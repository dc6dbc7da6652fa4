/**
 * Client of the creator_a API (ScrapeCreators, contracts §3): GET routes with query parameters,
 * the key in `x-api-key`, JSON answers carrying `success`, `credits_remaining` and
 * `credits_charged` beside the data. Faults become catalogue errors here, in the wording of the
 * site the call is about (spec §7.1: `Received invalid data structure from clipsite service.`).
 */
import { NotFoundError, invalidStructure, providerRequest, type RunContext } from '../../core/sdk.js';

/** The public name of the site a call is about, used in 502 texts. */
export type Site = 'clipsite' | 'bizsite' | 'videosite';

/** One upstream call. */
export interface CreatorCall {
  path: string;
  query: Record<string, string | number | boolean | undefined>;
  site: Site;
  /** The 404 text when the provider finds nothing (spec §7.1 wording per operation). */
  notFound: string;
}

/** A JSON object answer. */
export type Json = Record<string, any>;

/** Provider texts that mean "nothing there" in a `success:false` body (contracts §3 "Errors"). */
const NOT_FOUND = /not found|no .{0,40}found|does ?n[o']t exist|could ?n[o']t find|unavailable|private|deleted|removed/i;

/** The error text of a `success:false` body: `message ?? error` (contracts §3). */
function failureText(body: Json): string {
  const v = body.message ?? body.error;
  return typeof v === 'string' ? v : v && typeof v.message === 'string' ? v.message : '';
}

/**
 * Makes one call and returns the answer's JSON object. 401/403 → 500, 402 → fallback-able 503
 * logged for the operator, 429 → 503 (the kit's standard mapping); 404 and a `success:false`
 * body that says "not found" → 404 with `notFound`; 5xx → 502 `Failed to retrieve data from <site>
 * service.`, a timeout → 502 `The <site> service timed out.` (issue 28: as the other providers);
 * bodies that are not a JSON object → 502 `Received invalid data structure…` (issue 13). The raw answer becomes `meta.native`; the
 * provider's credit counters go to the log, never into the response (issue 13).
 */
export async function creatorGet(ctx: RunContext<any, any>, call: CreatorCall): Promise<Json> {
  const invalid = (detail: string) => invalidStructure(ctx, detail, call.site);
  const { data } = await providerRequest<unknown>(ctx, {
    path: call.path,
    query: call.query,
    auth: { header: 'x-api-key' },
    service: call.site,
    // 5xx, timeouts and an unreachable provider keep the kit's wording (issue 28: `Failed to
    // retrieve data from clipsite service.`, as every other provider says); only an answer we
    // cannot read is an invalid structure.
    mapError: (res) => (res.status === 404 ? new NotFoundError(call.notFound) : undefined),
  });
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw invalid('answer is not a JSON object');
  const body = data as Json;
  ctx.setNative(body);
  if (body.credits_remaining !== undefined || body.credits_charged !== undefined) {
    ctx.log.info({ provider: ctx.provider, route: call.path, credits_remaining: body.credits_remaining, credits_charged: body.credits_charged }, 'creator_a credits');
  }
  if (body.success === false) {
    const text = failureText(body);
    if (NOT_FOUND.test(text)) throw new NotFoundError(call.notFound);
    throw invalid(`success:false: ${text}`);
  }
  return body;
}

