/**
 * One call's usage row (issue 11: one call record). The lanes and the executor hand it facts as
 * they learn them — who called, which target, which provider was tried, what was charged, how it
 * ended — and it produces the row exactly once, so the error path never re-derives anything.
 */
import type { KeyRecord } from '../core/keys/types.js';
import type { RateDecision } from '../core/ratelimit/types.js';
import type { UsageRow } from '../core/usage/usage-log.js';

/** Usage status and code of a call whose client disconnected before the answer (nginx's convention). */
export const CLIENT_CLOSED_STATUS = 499;
const CLIENT_CLOSED = 'CLIENT_CLOSED';

/** What a call's row says about its target. */
export type ObjectType = UsageRow['objectType'];

/** The facts of one authenticated call, and the one usage row they make. */
export class CallRecord {
  /** The calling key, once authenticated (no row without one). */
  key?: KeyRecord;
  /** The key's rate-limit decision, for the response headers. */
  rate?: RateDecision;
  readonly startedAt = process.hrtime.bigint();
  private objectType: ObjectType = 'operation';
  private objectId: string;
  private provider: string | null = null;
  private credits = 0;
  private units: Record<string, number> | null = null;
  private code: string | null = null;
  private written = false;

  /** `route` names the call until a lane says what it targets (e.g. an unknown path). */
  constructor(route: string) {
    this.objectId = route;
  }

  /** The registry target (or the lane's own operation, e.g. `balance`) the call is for. */
  target(type: ObjectType, id: string): void {
    this.objectType = type;
    this.objectId = id;
  }

  /** A provider is being tried (the executor says so before each attempt). */
  attempt(provider: string): void {
    this.provider = provider;
  }

  /** The call succeeded: who served it, what it cost and what it produced. */
  served(result: { provider: string | null; credits: number; units?: Record<string, number> }): void {
    this.provider = result.provider;
    this.credits = result.credits;
    this.units = result.units && Object.keys(result.units).length > 0 ? result.units : null;
  }

  /** The call failed with a catalogue code. */
  failed(code: string): void {
    this.code = code;
  }

  /** The usage row, the first time it is asked for after authentication; `undefined` otherwise. */
  take(fields: { requestId: string; lane: UsageRow['lane']; status: number; requestSource: string }): UsageRow | undefined {
    if (!this.key || this.written) return undefined;
    this.written = true;
    const { status } = fields;
    return {
      requestId: fields.requestId,
      keyId: this.key.id,
      lane: fields.lane,
      objectType: this.objectType,
      objectId: this.objectId,
      provider: this.provider,
      status,
      code: status >= 400 ? (status === CLIENT_CLOSED_STATUS ? CLIENT_CLOSED : this.code) : null,
      credits: this.credits,
      latencyMs: Number((process.hrtime.bigint() - this.startedAt) / 1_000_000n),
      requestSource: fields.requestSource,
      createdAt: new Date(),
      units: this.units,
    };
  }
}
