/**
 * Prometheus metrics of one instance (issue 18 "Operations"): every call's usage row (requests by
 * lane, target, provider and status; latency; credits; refusals), every HTTP answer (including
 * 401s and non-API routes), upstream errors and fallbacks by provider from the executor, engine
 * pools (browser, office, sandboxes, compute), the body-bytes budget and group-commit batch
 * sizes. A registry of its own per instance, so several servers in one process (tests) never
 * share counters.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { UsageRow } from '../../core/usage/usage-log.js';
import type { EngineSet } from '../../core/engines/index.js';

/** Seconds: calls range from sub-millisecond refusals to minute-long conversions. */
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
/** How often the event-loop lag is sampled, in ms (see the constructor). */
const LAG_SAMPLE_MS = 100;

/** Codes that are the service refusing work, not the work failing (alert on their rate). */
const REFUSALS = new Set(['RATE_LIMITED', 'BUSY', 'INSUFFICIENT_CREDITS', 'BUDGET_EXCEEDED', 'PROVIDER_NOT_ALLOWED', 'SHUTTING_DOWN']);
/** Codes that blame the provider behind a call. */
const UPSTREAM = new Set(['UPSTREAM_ERROR', 'UPSTREAM_RATE_LIMITED', 'PROVIDER_OUT_OF_CREDITS', 'PROVIDER_AUTH_FAILED', 'NOT_CONFIGURED']);

/** The lanes' own operations (v1 key check, v2 account and discovery, MCP discovery): the only non-registry targets. */
const OPERATIONS = new Set(['key-connection', 'balance', 'usage', 'transactions', 'search', 'details', 'run', 'jobs', 'job_status', 'job_cancel', 'job_list', 'webhook_secret', 'job_deliveries']);

/** Job states, the only values of the jobs gauge's `state` label. */
const JOB_STATES = ['queued', 'running', 'completed', 'failed', 'cancelled'];

/** The lane a URL belongs to (a bounded label for every HTTP answer). */
export function laneOf(url: string): string {
  const m = /^\/(api\/v1|api\/v2|admin|files|mcp|metrics|openapi|docs|healthz|readyz)(?:[/?]|$)/.exec(url);
  if (!m) return 'other';
  return m[1]!.replace('api/', '');
}

/** One instance's metrics. */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly calls: Counter<'lane' | 'target' | 'provider' | 'status' | 'code'>;
  private readonly callSeconds: Histogram<'lane' | 'target'>;
  private readonly credits: Counter<'lane' | 'target' | 'provider'>;
  private readonly refusals: Counter<'reason' | 'lane'>;
  private readonly http: Counter<'lane' | 'status'>;
  private readonly httpSeconds: Histogram<'lane'>;
  private readonly upstreamErrors: Counter<'provider' | 'code'>;
  private readonly fallbacks: Counter<'provider' | 'code'>;
  private readonly batches: Histogram<'writer'>;

  /** Whether a capability/endpoint id is the registry's (labels take no ids the registry does not know). */
  private readonly knownTarget: (type: 'capability' | 'endpoint', id: string) => boolean;

  constructor(opts: { engines?: EngineSet; bodyBytesInFlight?: () => number; inFlight?: () => number; knownTarget?: (type: 'capability' | 'endpoint', id: string) => boolean }) {
    const r = this.registry;
    this.knownTarget = opts.knownTarget ?? (() => true);
    // The event-loop lag histogram samples on a timer of its own: prom-client's 10 ms default woke
    // an idle service 100 times a second, most of its idle CPU (issue 27). A block still shows
    // in full at 100 ms (it delays the next sample by its length); only sub-100 ms detail is lost.
    collectDefaultMetrics({ register: r, prefix: 'cia_', eventLoopMonitoringPrecision: LAG_SAMPLE_MS });
    this.calls = new Counter({ name: 'cia_calls_total', help: 'Authenticated calls by lane, target (capability, endpoint or operation), provider that served or failed, HTTP status and error code.', labelNames: ['lane', 'target', 'provider', 'status', 'code'], registers: [r] });
    this.callSeconds = new Histogram({ name: 'cia_call_duration_seconds', help: 'Latency of authenticated calls by lane and target.', labelNames: ['lane', 'target'], buckets: LATENCY_BUCKETS, registers: [r] });
    this.credits = new Counter({ name: 'cia_credits_charged_total', help: 'Credits charged, by lane, target and provider.', labelNames: ['lane', 'target', 'provider'], registers: [r] });
    this.refusals = new Counter({ name: 'cia_refusals_total', help: 'Calls refused before any work: rate limit, BUSY (engine share or body budget), credits, policy, shutdown.', labelNames: ['reason', 'lane'], registers: [r] });
    this.http = new Counter({ name: 'cia_http_requests_total', help: 'Every HTTP answer (also unauthenticated and non-API), by lane and status.', labelNames: ['lane', 'status'], registers: [r] });
    this.httpSeconds = new Histogram({ name: 'cia_http_request_duration_seconds', help: 'Latency of every HTTP answer by lane.', labelNames: ['lane'], buckets: LATENCY_BUCKETS, registers: [r] });
    this.upstreamErrors = new Counter({ name: 'cia_upstream_errors_total', help: 'Provider attempts that failed because of the provider (including those a fallback then served), by provider and code.', labelNames: ['provider', 'code'], registers: [r] });
    this.fallbacks = new Counter({ name: 'cia_fallbacks_total', help: 'Times a provider failed and the next provider of the capability was tried, by the provider that failed.', labelNames: ['provider', 'code'], registers: [r] });
    this.batches = new Histogram({ name: 'cia_group_commit_batch_size', help: 'Rows per group-commit write (ledger, settle, usage).', labelNames: ['writer'], buckets: BATCH_BUCKETS, registers: [r] });
    if (opts.inFlight) {
      const read = opts.inFlight;
      new Gauge({ name: 'cia_http_requests_in_flight', help: 'Requests received and not yet answered.', registers: [r], collect() { this.set(read()); } });
    }
    if (opts.bodyBytesInFlight) {
      const read = opts.bodyBytesInFlight;
      new Gauge({ name: 'cia_body_bytes_in_flight', help: 'Request-body bytes held now against BODY_BYTES_IN_FLIGHT_MAX.', registers: [r], collect() { this.set(read()); } });
    }
    if (opts.engines) this.engineGauges(opts.engines);
  }

  /**
   * Jobs by state (all instances: read from the store at each scrape) and the age of the oldest
   * queued job, which grows when workers cannot keep up (issue 25 "Progress everywhere").
   */
  jobGauges(read: () => Promise<{ byStatus: Record<string, number>; oldestQueuedSeconds: number }>): void {
    const r = this.registry;
    new Gauge({
      name: 'cia_jobs',
      help: 'Jobs kept in the store (all instances; finished ones until JOB_RETENTION_MS), by state.',
      labelNames: ['state'],
      registers: [r],
      async collect() {
        const { byStatus } = await read();
        for (const state of JOB_STATES) this.set({ state }, byStatus[state] ?? 0);
      },
    });
    new Gauge({
      name: 'cia_jobs_queue_age_seconds',
      help: 'Age of the oldest job still queued (0 when none waits).',
      registers: [r],
      async collect() {
        this.set((await read()).oldestQueuedSeconds);
      },
    });
  }

  /** One usage row: the call's counters. */
  row(row: UsageRow): void {
    // Every label must come from a bounded set (issue 24 finding 9): a call refused before its lane
    // named a target carries its raw path, and a made-up id on `/api/v2/run` or MCP `run` is the
    // caller's text; a series per such value would grow /metrics without end.
    const target = this.targetLabel(row);
    const provider = row.provider ?? '';
    this.calls.inc({ lane: row.lane, target, provider, status: String(row.status), code: row.code ?? '' });
    this.callSeconds.observe({ lane: row.lane, target }, row.latencyMs / 1000);
    if (row.credits > 0) this.credits.inc({ lane: row.lane, target, provider }, row.credits);
    if (row.code && REFUSALS.has(row.code)) this.refusals.inc({ reason: row.code, lane: row.lane });
  }

  /** The `target` label of a row: a registry id, one of the lanes' own operations, or a fixed placeholder. */
  private targetLabel(row: UsageRow): string {
    if (row.objectId.startsWith('/')) return '(before target)';
    if (row.objectType === 'operation') return OPERATIONS.has(row.objectId) ? row.objectId : 'unknown';
    return this.knownTarget(row.objectType, row.objectId) ? row.objectId : 'unknown';
  }

  /** One HTTP answer. */
  answer(url: string, status: number, seconds: number): void {
    const lane = laneOf(url);
    this.http.inc({ lane, status: String(status) });
    this.httpSeconds.observe({ lane }, seconds);
  }

  /** A provider attempt failed with `code`; `fellBack` when the next provider was then tried. */
  providerFailed(provider: string, code: string, fellBack: boolean): void {
    if (UPSTREAM.has(code)) this.upstreamErrors.inc({ provider, code });
    if (fellBack) this.fallbacks.inc({ provider, code });
  }

  /** A group-commit batch was written. */
  batch(writer: string, size: number): void {
    this.batches.observe({ writer }, size);
  }

  /**
   * Engine pools, read at scrape time and only for engines already started (reading a lazy
   * engine must not start Chromium, LibreOffice, a sandbox or a thread). Every engine with a pool
   * exposes counters: the browser and office pools, the JavaScript sandbox's worker processes,
   * the Python sandbox's bubblewrap processes and the compute worker threads. Engines that can
   * tell why a worker was replaced say it in `cia_engine_recycles`, `cia_engine_kills` and
   * `cia_engine_crashes`; `cia_engine_restarts` stays the sum for every pool that restarts.
   */
  private engineGauges(engines: EngineSet): void {
    type Name = 'browser' | 'office' | 'js' | 'python' | 'compute';
    type Readers = { [K in Name]?: (e: EngineSet[K]) => number };
    const gauge = (name: string, help: string, readers: Readers) =>
      new Gauge({
        name,
        help,
        labelNames: ['engine'],
        registers: [this.registry],
        collect() {
          this.reset();
          const started = engines.started();
          for (const engine of Object.keys(readers) as Name[]) {
            if (!started.includes(engine)) continue;
            const read = readers[engine] as (e: unknown) => number;
            this.set({ engine }, read(engines[engine]));
          }
        },
      });
    gauge('cia_engine_queue_depth', 'Jobs waiting for an engine.', {
      browser: (e) => e.stats().queued,
      office: (e) => e.stats().queued,
      js: (e) => e.stats().queued,
      python: (e) => e.stats().queued,
      compute: (e) => e.stats().queued,
    });
    gauge('cia_engine_active_jobs', 'Jobs an engine is running now.', {
      browser: (e) => e.stats().active,
      office: (e) => e.stats().workers.filter((w) => w.state === 'busy').length,
      js: (e) => e.stats().active,
      python: (e) => e.stats().active,
      compute: (e) => e.stats().active,
    });
    gauge('cia_engine_pool_size', 'Workers of an engine alive: browsers running (browser), worker processes (office, js), sandbox processes pre-started or running a run (python), worker threads (compute).', {
      browser: (e) => (e.stats().launches > 0 ? 1 : 0),
      office: (e) => e.stats().workers.filter((w) => w.state !== 'stopped').length,
      js: (e) => e.stats().workers,
      python: (e) => e.stats().prestarted + e.stats().active,
      compute: (e) => e.stats().workers,
    });
    gauge('cia_engine_jobs', 'Jobs an engine has run since start (a counter, read from the engine).', {
      browser: (e) => e.stats().jobs,
      office: (e) => e.stats().workers.reduce((n, w) => n + w.conversions, 0),
      js: (e) => e.stats().jobs,
      python: (e) => e.stats().jobs,
      compute: (e) => e.stats().jobs,
    });
    gauge('cia_engine_restarts', 'Engine workers replaced since start, for any reason (browser: launches after the first; office: worker restarts; js: recycles + kills + crashes; compute: kills + crashes). Python sandboxes serve one run each and are never restarted.', {
      browser: (e) => Math.max(0, e.stats().launches - 1),
      office: (e) => e.stats().workers.reduce((n, w) => n + w.restarts, 0),
      js: (e) => {
        const s = e.stats();
        return s.recycles + s.kills + s.crashes;
      },
      compute: (e) => e.stats().kills + e.stats().crashes,
    });
    const officeSum = (e: EngineSet['office'], field: 'recycles' | 'kills' | 'crashes') => e.stats().workers.reduce((n, w) => n + w[field], 0);
    gauge('cia_engine_recycles', 'Workers replaced on schedule since start (browser: after BROWSER_RECYCLE_AFTER jobs; office: after its conversion limit; js: after SANDBOX_JS_RECYCLE_AFTER runs); routine.', {
      browser: (e) => e.stats().recycles,
      office: (e) => officeSum(e, 'recycles'),
      js: (e) => e.stats().recycles,
    });
    gauge('cia_engine_kills', 'Workers the engine killed since start because their job overran its time limit, hung or was aborted (office, js, compute).', {
      office: (e) => officeSum(e, 'kills'),
      js: (e) => e.stats().kills,
      compute: (e) => e.stats().kills,
    });
    gauge('cia_engine_crashes', 'Workers that died on their own since start (browser: Chromium disconnected; office: LibreOffice exited; js: worker processes; python: pre-started sandboxes before their run; compute: worker threads out of memory or crashed).', {
      browser: (e) => e.stats().crashes,
      office: (e) => officeSum(e, 'crashes'),
      js: (e) => e.stats().crashes,
      python: (e) => e.stats().crashes,
      compute: (e) => e.stats().crashes,
    });
  }

  /** The exposition text. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
