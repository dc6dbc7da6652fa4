/**
 * Cancellation across HTTP requests (issue 17 §3). In stateless mode every POST gets its own MCP
 * server, so the `notifications/cancelled` a client sends arrives at a different server than the
 * one running the call. Running calls are therefore registered here per instance, under the key,
 * the client's session id and the JSON-RPC request id (ids are only unique per client), and a
 * cancellation is delivered to the server that owns the call as if its own transport had received
 * it: the SDK then aborts that handler's signal and sends no response, as the protocol asks.
 * A cancellation that reaches another instance finds nothing here; the client's disconnect still
 * aborts the call there.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Delivers a cancellation to the server running the call. */
export type CancelCall = (reason: string | undefined) => void;

/** Who may cancel: the same key, in the same session. */
export interface CallScope {
  keyId: string;
  sessionId: string | undefined;
}

function slot(scope: CallScope, id: RequestId): string {
  return `${scope.keyId}\u0000${scope.sessionId ?? ''}\u0000${typeof id}:${String(id)}`;
}

/** The calls running on this instance that a client may cancel by notification. */
export class RunningCalls {
  private readonly calls = new Map<string, CancelCall>();

  /** Registers a call; the returned function removes it (call it when the call ends). */
  add(scope: CallScope, id: RequestId, cancel: CancelCall): () => void {
    const k = slot(scope, id);
    this.calls.set(k, cancel);
    return () => {
      if (this.calls.get(k) === cancel) this.calls.delete(k);
    };
  }

  /** Cancels the call the client named, if it runs here; true when one was found. */
  cancel(scope: CallScope, id: RequestId, reason: string | undefined): boolean {
    const cancel = this.calls.get(slot(scope, id));
    if (!cancel) return false;
    cancel(reason);
    return true;
  }

  /** Calls running now (tests, diagnostics). */
  get size(): number {
    return this.calls.size;
  }
}
