/**
 * The stepwise form of a capability implementation. Jobs use it to run big work (a 10,000-page
 * crawl, a 1,000-URL batch) one item at a time: every item is a durable queue entry any instance
 * may claim, charged once when it is done, and a job resumed elsewhere continues from the items
 * already done instead of starting over. A provider without steps still runs as a job, as one
 * call of its endpoint.
 */
import type { RunContext } from './types.js';
import type { StepsOf } from './job-step-shapes.js';

export type { JobItemOutcome, JobItemSpec, JobStepResult, StepsOf } from './job-step-shapes.js';

/**
 * The steps a provider offers for one capability, given its usual run context: bound to the
 * job's key and cancelled when the job is; `ctx.call` runs other capabilities free of charge (the
 * job prices each item by its `units`).
 */
export interface JobSteps<I = any, S = any> extends StepsOf<I, RunContext<S>> {}
