/**
 * One monitor run: a change-tracking scrape of the monitor's page with its key, through the
 * executor like any call (policy, credits, the key's snapshot history), charged as one scrape.
 * A change, a removal or a removed page's return goes to the webhook dispatcher as
 * `monitor.changed` with the diff.
 */
import { AuthError, toServiceError } from '../errors.js';
import type { Executor } from '../execution/executor.js';
import { LaneAdapter } from '../lane/adapter.js';
import type { KeyStore } from '../keys/key-store.js';
import type { PluginLogger } from '../plugin/types.js';
import type { Registry } from '../registry/registry.js';
import type { UsageLog } from '../usage/usage-log.js';
import type { MonitorStore } from './monitor-store.js';
import type { ClaimedRun, Monitor, MonitorLastRun, MonitorWebhookSink } from './types.js';
import { monitorTag } from './monitor-tag.js';

/** The scrape input of a run: the monitor's options, its page, and change tracking. */
export function runInput(m: Pick<Monitor, 'id' | 'url' | 'options'>): Record<string, unknown> {
  const formats = Array.isArray(m.options.formats) ? (m.options.formats as string[]) : [typeof m.options.format === 'string' ? (m.options.format as string) : 'markdown'];
  const { format: _format, ...rest } = m.options;
  return { ...rest, url: m.url, formats: [...new Set([...formats, 'changeTracking'])], tag: monitorTag(m.id) };
}

/**
 * Whether a run's change tracking is news for the monitor's webhook: `changed` and `removed` are,
 * and so is `new` after an earlier look at the page, that is a page back after a removal (or first
 * seen by the monitor answering 404): change tracking keeps a removal marker, so that return reads
 * `new` with the marker's time as `previousScrapeAt`. A `new` without one is the monitor's baseline
 * and tells nothing; a page still gone reads `same`. A page that answered a server error fails the
 * run (nothing compared, sent or charged).
 */
function isChange(ct: ChangeTrackingAnswer | undefined): boolean {
  if (ct?.changeStatus === 'changed' || ct?.changeStatus === 'removed') return true;
  return ct?.changeStatus === 'new' && !!ct.previousScrapeAt;
}

interface ChangeTrackingAnswer {
  changeStatus?: string;
  previousScrapeAt?: string | null;
  diff?: string;
}

/** Runs claimed ticks. */
export class MonitorRunner {
  constructor(
    private readonly deps: {
      store: MonitorStore;
      keys: KeyStore;
      registry: Registry;
      executor: Executor;
      usage: UsageLog;
      webhooks?: MonitorWebhookSink;
      log: PluginLogger;
      /** How long a run may take before it counts as lost (its instance died). */
      runTimeoutMs: number;
    },
  ) {}

  /** Runs one tick unless it already ran; never throws (a failed run is recorded on the monitor). */
  async run(claim: ClaimedRun, signal: AbortSignal): Promise<void> {
    const { store, keys, registry, executor, usage, webhooks, log, runTimeoutMs } = this.deps;
    const m = await store.startRun(claim.id, claim.tick, runTimeoutMs);
    if (!m) return;
    // The tick names the call: a queue entry delivered twice cannot reach the ledger twice.
    const requestId = `mon_${m.id.slice(4)}_${claim.tick}`;
    const started = Date.now();
    const at = new Date(started).toISOString();
    let last: MonitorLastRun;
    let ct: ChangeTrackingAnswer | undefined;
    let row = { provider: null as string | null, status: 200, code: null as string | null, credits: 0, units: null as Record<string, number> | null };
    let keyInactive = false;
    try {
      const key = await keys.get(m.keyId);
      if (!key.active) {
        keyInactive = true;
        throw new AuthError('Invalid API key');
      }
      const target = registry.resolve('capability', 'scrape_page');
      if (!target) throw new Error('scrape_page is not registered');
      // A monitor is a v2 resource: its runs go through the v2 lane's adapter, as `run` does.
      const lane = new LaneAdapter('v2', registry, executor);
      const signals = AbortSignal.any([signal, AbortSignal.timeout(runTimeoutMs)]);
      const res = await lane.run({ requestId, key, type: 'capability', id: 'scrape_page', resolved: target, input: runInput(m), signal: signals, log });
      ct = (res.data as { changeTracking?: ChangeTrackingAnswer }).changeTracking;
      last = { at, changeStatus: ct?.changeStatus };
      row = { provider: res.served.provider, status: 200, code: null, credits: res.served.credits, units: Object.keys(res.units).length ? (res.units as Record<string, number>) : null };
    } catch (err) {
      const e = toServiceError(err);
      if (e.status >= 500) log.warn({ err, monitor: m.id }, 'monitor run failed');
      last = { at, error: { code: e.code, message: e.message } };
      row = { ...row, status: e.status, code: e.code };
    }
    usage.record({ requestId, keyId: m.keyId, lane: 'v2', objectType: 'capability', objectId: 'scrape_page', ...row, latencyMs: Date.now() - started, requestSource: 'monitor', createdAt: new Date(started) });
    const changed = isChange(ct);
    await store.finishRun(m.id, claim.tick, last, changed);
    // A deactivated key's monitor would otherwise tick for ever, each run refused and logged:
    // it is paused once (its last run says why) and stays so until resumed with a PATCH.
    if (keyInactive) await store.update(m.keyId, m.id, { status: 'paused' });
    if (changed && m.webhook && webhooks) {
      try {
        await webhooks.deliver({
          keyId: m.keyId,
          jobId: m.id,
          webhook: m.webhook,
          type: 'monitor.changed',
          data: { monitorId: m.id, url: m.url, scrapedAt: at, changeTracking: ct },
        });
      } catch (err) {
        log.warn({ err, monitor: m.id }, 'monitor: the change could not be handed to the webhook dispatcher');
      }
    }
  }
}
