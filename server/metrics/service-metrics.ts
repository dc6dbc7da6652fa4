/**
 * Prometheus metrics of one instance (issue 18 "Operations"): every call's usage row (requests by
 * lane, target, provider and status; latency; credits; refusals), every HTTP answer (including
 * 401s and non-API routes), upstream errors and fallbacks by provider from the executor, engine
 * pools that expose stats, the body-bytes budget and group-commit batch sizes. A registry of its
 * own per instance, so several servers in one process (tests) never share counters.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { UsageRow } from '../../core/usage/usage-log.js';
import type { EngineSet } from '../../core/engines/index.js';

/** Seconds: calls range from sub-millisecond refusals to minute-long conversions. */
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/** Codes that are the service refusing work, not the work failing (alert on their rate). */
const REFUSALS = new Set(['RATE_LIMITED', 'BUSY', 'INSUFFICIENT_CREDITS', 'BUDGET_EXCEEDED', 'PROVIDER_NOT_ALLOWED', 'SHUTTING_DOWN']);
/** Codes that blame the provider behind a call. */
const UPSTREAM = new Set(['UPSTREAM_ERROR', 'UPSTREAM_RATE_LIMITED', 'PROVIDER_OUT_OF_CREDITS', 'PROVIDER_AUTH_FAILED', 'NOT_CONFIGURED']);

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

  constructor(opts: { engines?: EngineSet; bodyBytesInFlight?: () => number; inFlight?: () => number }) {
    const r = this.registry;
    collectDefaultMetrics({ register: r, prefix: 'cia_' });
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

  /** One usage row: the call's counters. */
  row(row: UsageRow): void {
    // A call refused before its lane named a target carries its raw path: not a bounded label.
    const target = row.objectId.startsWith('/') ? '(before target)' : row.objectId;
    const provider = row.provider ?? '';
    this.calls.inc({ lane: row.lane, target, provider, status: String(row.status), code: row.code ?? '' });
    this.callSeconds.observe({ lane: row.lane, target }, row.latencyMs / 1000);
    if (row.credits > 0) this.credits.inc({ lane: row.lane, target, provider }, row.credits);
    if (row.code && REFUSALS.has(row.code)) this.refusals.inc({ reason: row.code, lane: row.lane });
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
   * engine must not start Chromium or LibreOffice). Only the browser and office pools expose
   * counters today; the sandboxes and compute threads do not yet.
   */
  private engineGauges(engines: EngineSet): void {
    const started = (name: 'browser' | 'office') => engines.started().includes(name);
    const gauge = (name: string, help: string, read: (set: (labels: { engine: string }, v: number) => void) => void) =>
      new Gauge({ name, help, labelNames: ['engine'], registers: [this.registry], collect() { this.reset(); read((l, v) => this.set(l, v)); } });
    gauge('cia_engine_queue_depth', 'Jobs waiting for an engine.', (set) => {
      if (started('browser')) set({ engine: 'browser' }, engines.browser.stats().queued);
      if (started('office')) set({ engine: 'office' }, engines.office.stats().queued);
    });
    gauge('cia_engine_active_jobs', 'Jobs an engine is running now.', (set) => {
      if (started('browser')) set({ engine: 'browser' }, engines.browser.stats().active);
      if (started('office')) set({ engine: 'office' }, engines.office.stats().workers.filter((w) => w.state === 'busy').length);
    });
    gauge('cia_engine_pool_size', 'Workers of an engine pool that are alive (office), or browsers running (browser).', (set) => {
      if (started('browser')) set({ engine: 'browser' }, engines.browser.stats().launches > 0 ? 1 : 0);
      if (started('office')) set({ engine: 'office' }, engines.office.stats().workers.filter((w) => w.state !== 'stopped').length);
    });
    gauge('cia_engine_jobs', 'Jobs an engine has run since start (a counter, read from the engine).', (set) => {
      if (started('browser')) set({ engine: 'browser' }, engines.browser.stats().jobs);
      if (started('office')) set({ engine: 'office' }, engines.office.stats().workers.reduce((n, w) => n + w.conversions, 0));
    });
    gauge('cia_engine_restarts', 'Engine processes restarted since start, recycles and crashes together (browser: launches after the first; office: worker restarts).', (set) => {
      if (started('browser')) set({ engine: 'browser' }, Math.max(0, engines.browser.stats().launches - 1));
      if (started('office')) set({ engine: 'office' }, engines.office.stats().workers.reduce((n, w) => n + w.restarts, 0));
    });
  }

  /** The exposition text. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
