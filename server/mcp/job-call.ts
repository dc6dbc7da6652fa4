/**
 * A long tool call with progress (issue 25 "Progress everywhere"): when a `tools/call` carries
 * `_meta.progressToken` and its capability has a provider with job steps (a crawl, a batch), the
 * call runs through the job service for the calling key instead of one executor call. The lane
 * follows the job, sends `notifications/progress` (`progress` = items finished, strictly
 * increasing; `total` when the job knows it) and answers as the tool does (its output schema, the
 * items in the order the job listed them; the job's id in `_meta.jobId`); a cancelled or
 * disconnected call cancels the job. Credits are the job's: each finished item at the same price
 * the synchronous call charges per item, failed items free (see README "MCP").
 */
import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { JobService } from '../../core/jobs/service.js';
import { isFinal, type JobRecord } from '../../core/jobs/types.js';
import { OperationFailedError, ServiceError, toServiceError, type ErrorCode } from '../../core/errors.js';
import type { ResolvedTarget } from '../../core/registry/types.js';
import { withDecodedFields } from '../../core/execution/decoded-fields.js';
import { CallRecord, CLIENT_CLOSED_STATUS } from '../call-record.js';
import { errorResult, type CallDeps, type CallFacts, type CallTarget } from './call.js';

/** How often the lane reads the job while it runs (one indexed row read). */
const POLL_MS = 200;

/** The MCP progress token of a request (`string | number`), if the client sent one. */
export type ProgressToken = string | number;

/** Sends one notification on the call's own response stream. */
export type Notify = (n: ServerNotification) => Promise<void>;

/**
 * True when a call should run as a job: a capability with a stepwise provider whose input fits the
 * tool's (synchronous) schema. Input that does not fit goes the usual way and gets its usual 400,
 * so a progress token never widens what a tool accepts.
 */
export function runsAsJob(target: CallTarget): target is Extract<CallTarget, { kind: 'registry' }> & { resolved: Extract<ResolvedTarget, { type: 'capability' }> } {
  if (target.kind !== 'registry' || target.resolved?.type !== 'capability') return false;
  const cap = target.resolved.capability;
  // A large body's decoded file (core/plugin/predecoded.ts) is checked as the string it stands for.
  return cap.providers.some((b) => b.impl.steps) && withDecodedFields(cap.input, target.input, () => cap.input.Check(target.input));
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** Runs the call as a job, reporting progress; writes the call's usage row; never throws for the call's own failure. */
export async function runJobCall(
  deps: CallDeps & { jobs: JobService },
  facts: CallFacts,
  target: Extract<CallTarget, { kind: 'registry' }> & { resolved: Extract<ResolvedTarget, { type: 'capability' }> },
  progressToken: ProgressToken,
  notify: Notify,
): Promise<CallToolResult> {
  const cap = target.resolved.capability;
  const record = new CallRecord('/mcp');
  record.key = facts.key;
  record.target('capability', cap.id);
  let status = 200;
  let job: JobRecord | undefined;
  let sent = -1;
  const report = async (j: JobRecord) => {
    const progress = j.done + j.failed;
    if (progress <= sent) return;
    sent = progress;
    const of = j.total === null ? '' : ` of ${j.total}`;
    const message = `${j.done}${of} done${j.failed ? `, ${j.failed} failed` : ''}`;
    // A client that went away cannot be told; the job is cancelled below instead.
    await notify({ method: 'notifications/progress', params: { progressToken, progress, ...(j.total === null ? {} : { total: j.total }), message } }).catch(() => undefined);
  };
  try {
    job = await deps.jobs.submit(facts.key, { type: 'capability', id: cap.id, provider: target.provider, input: target.input });
    await report(job);
    while (!isFinal(job.status)) {
      await sleep(POLL_MS, facts.signal);
      if (facts.signal.aborted) {
        // The client cancelled or left: stop the work; items already done stay charged.
        job = await deps.jobs.cancel(facts.key.id, job.id);
        throw new OperationFailedError('The call was cancelled.');
      }
      job = await deps.jobs.get(facts.key.id, job.id);
      await report(job);
    }
    const meta = { requestId: facts.requestId, provider: job.provider, credits: job.creditsCharged, jobId: job.id };
    if (job.status !== 'completed') {
      const err = new ServiceError((job.errorCode ?? 'OPERATION_FAILED') as ErrorCode, job.errorMessage ?? 'The job was cancelled.');
      record.failed(err.code);
      status = err.status ?? 500;
      const res = errorResult(err, facts.requestId);
      // What the job did before it ended is charged (items done): say so and how much.
      return { ...res, _meta: { ...res._meta, jobId: job.id, credits: job.creditsCharged } };
    }
    record.served({ provider: job.provider, credits: job.creditsCharged });
    // The tool's own output shape; the job is named in `_meta.jobId`.
    const data = job.stepwise ? await deps.jobs.output(facts.key.id, job.id) : job.data;
    const isObject = !!data && typeof data === 'object' && !Array.isArray(data);
    return { content: [{ type: 'text', text: JSON.stringify(data) }], ...(isObject ? { structuredContent: data as Record<string, unknown> } : {}), _meta: meta };
  } catch (raw) {
    const err = toServiceError(raw);
    record.failed(err.code);
    status = facts.signal.aborted ? CLIENT_CLOSED_STATUS : err.status;
    if (err.code === 'INTERNAL' && !facts.signal.aborted) deps.log.error({ reqId: facts.requestId, err: raw }, 'MCP job call failed');
    const res = errorResult(err, facts.requestId);
    return job ? { ...res, _meta: { ...res._meta, jobId: job.id, credits: job.creditsCharged } } : res;
  } finally {
    const row = record.take({ requestId: facts.requestId, lane: 'mcp', status, requestSource: facts.requestSource });
    if (row) deps.usage.record(row);
  }
}
