/**
 * One MCP tool call through the lane adapter and the shared executor (issue 17 §3), exactly as
 * `/api/v2/run` runs a target: policy, validation with the spec's 400 texts, reservation, provider
 * chain with fallback, settlement or release, and one usage row (lane `mcp`). A failure is a tool
 * result with `isError` and the spec's message (spec §7), never a protocol error, so an agent
 * reads it.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import type { LaneAdapter } from '../../core/lane/adapter.js';
import type { FileStore } from '../../core/engines/files/types.js';
import type { KeyRecord } from '../../core/keys/types.js';
import type { ResolvedTarget } from '../../core/registry/types.js';
import type { UsageLog } from '../../core/usage/usage-log.js';
import { CodeExecutionError, type ServiceError, toServiceError } from '../../core/errors.js';
import { CallRecord, CLIENT_CLOSED_STATUS } from '../call-record.js';
import { fileContent } from './files.js';

/** Services a tool call uses. */
export interface CallDeps {
  /** The MCP lane's adapter to the executor. */
  adapter: LaneAdapter;
  usage: UsageLog;
  files: FileStore;
  log: FastifyBaseLogger;
}

/** The facts of one tool call. */
export interface CallFacts {
  requestId: string;
  key: KeyRecord;
  /** What the usage row records as `requestSource` (issue 17: `mcp` unless the client sent one). */
  requestSource: string;
  signal: AbortSignal;
  /** Set when the key's rate limit refused this request: the call fails with it, uncharged. */
  limited?: ServiceError;
}

/** What to run: a registry target, or an operation of the lane itself (discovery). */
export type CallTarget =
  | { kind: 'registry'; type: 'capability' | 'endpoint'; id: string; resolved: ResolvedTarget | undefined; provider?: string; input: unknown }
  | { kind: 'operation'; id: string; run: () => Promise<Record<string, unknown>> };

function canonicalId(t: Extract<CallTarget, { kind: 'registry' }>): string {
  if (!t.resolved) return t.id;
  return t.resolved.type === 'capability' ? t.resolved.capability.id : t.resolved.endpoint.id;
}

/** The text an agent reads for a failure: the spec's message (code execution: with its traceback). */
function errorText(err: ServiceError): string {
  if (err instanceof CodeExecutionError) return err.execution.traceback ? `${err.message}\n\n${err.execution.traceback}` : err.message;
  return err.message;
}

/** A tool-error result carrying the spec's message, the code and the request id. */
export function errorResult(err: ServiceError, requestId: string): CallToolResult {
  const meta: Record<string, unknown> = { requestId, code: err.code, status: err.status };
  if (typeof err.details?.retryAfter === 'number') meta.retryAfter = err.details.retryAfter;
  if (err instanceof CodeExecutionError) meta.error = err.execution;
  return { isError: true, content: [{ type: 'text', text: errorText(err) }], _meta: meta };
}

/** A success: the output as text and `structuredContent`, plus produced files. */
async function successResult(deps: CallDeps, data: unknown, meta: Record<string, unknown>): Promise<CallToolResult> {
  const isObject = !!data && typeof data === 'object' && !Array.isArray(data);
  const files = await fileContent(deps.files, data);
  return {
    content: [{ type: 'text', text: JSON.stringify(data) }, ...files],
    ...(isObject ? { structuredContent: data as Record<string, unknown> } : {}),
    _meta: meta,
  };
}

/** Runs one call and writes its usage row; never throws for a failure of the call itself. */
export async function runCall(deps: CallDeps, facts: CallFacts, target: CallTarget): Promise<CallToolResult> {
  const record = new CallRecord('/mcp');
  record.key = facts.key;
  let status = 200;
  try {
    if (target.kind === 'operation') {
      record.target('operation', target.id);
      if (facts.limited) throw facts.limited;
      const data = await target.run();
      return await successResult(deps, data, { requestId: facts.requestId, credits: 0 });
    }
    record.target(target.type, canonicalId(target));
    if (facts.limited) throw facts.limited;
    // An id the registry does not know or the lane hides gets the same answer as `/api/v2/run`.
    const answer = await deps.adapter.run({
      requestId: facts.requestId,
      key: facts.key,
      type: target.type,
      id: target.id,
      resolved: target.resolved,
      provider: target.provider,
      input: target.input,
      signal: facts.signal,
      log: deps.log,
      record,
    });
    return await successResult(deps, answer.data, { requestId: facts.requestId, ...answer.served });
  } catch (raw) {
    const err = toServiceError(raw);
    record.failed(err.code);
    // A call the client cancelled or walked away from is recorded as the other lanes do (499).
    status = facts.signal.aborted ? CLIENT_CLOSED_STATUS : err.status;
    if (!facts.signal.aborted) {
      if (err.code === 'INTERNAL') deps.log.error({ reqId: facts.requestId, err: raw, cause: (raw as Error)?.cause }, 'MCP tool call failed');
      else if (err.status >= 500 && err.code !== 'CODE_EXECUTION_ERROR') deps.log.warn({ reqId: facts.requestId, code: err.code, cause: String((err.cause as Error)?.message ?? '').slice(0, 1000) }, err.message.slice(0, 1000));
    }
    return errorResult(err, facts.requestId);
  } finally {
    const row = record.take({ requestId: facts.requestId, lane: 'mcp', status, requestSource: facts.requestSource });
    if (row) deps.usage.record(row);
  }
}
