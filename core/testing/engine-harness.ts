/**
 * Runs one plugin's endpoints and capabilities without the HTTP server (issue 11, testing entry
 * point): the plugin is registered beside the capability catalogue exactly as at boot (settings
 * parsed, boot checks applied, `setup` run) and every call goes through the real executor, so
 * input and output validation, capability mappings, provider fallback and cost rules behave as
 * they do behind `/api/v2/run`. Credits are recorded, not stored.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { buildRegistry } from '../registry/build.js';
import type { Registry } from '../registry/registry.js';
import { Executor, type ExecuteResult } from '../execution/executor.js';
import { createEngines, type EngineSet } from '../engines/index.js';
import type { Engines } from '../engines/types.js';
import type { PluginDef, PluginLogger } from '../plugin/types.js';
import type { KeyRecord } from '../keys/types.js';
import type { Policy } from '../policy/types.js';
import type { CapabilityDef } from '../plugin/types.js';
import { RecordingLedger } from './free-ledger.js';

/** Options of {@link engineHarness} and of `pluginHarness`. */
export interface HarnessOptions {
  /** Environment the settings are read from (e.g. the `env` a fake returns). */
  env?: Record<string, string | undefined>;
  /** More plugins registered beside it (fallback chains). */
  plugins?: PluginDef<any, any>[];
  /** Provider order per capability, as in `plugins.config.ts`. */
  providerOrder?: Record<string, string[]>;
  /** Replace engines (e.g. a stub browser); the rest are the real ones, started on first use. */
  engines?: Partial<{ [K in keyof Engines]: Engines[K] & { close(): Promise<void> } }>;
  /** The calling key's policy. */
  policy?: Policy;
  /** Where log lines go; default nowhere. */
  log?: PluginLogger;
  /**
   * A shorter time limit for every endpoint of `plugin`, ms, so a test of a provider that never
   * answers ends quickly with the error a caller would see at the real limit (issue 29).
   */
  timeLimitMs?: number;
}

/** One call's outcome: the executor's result plus what it reserved. */
export interface HarnessResult<T = any> extends Omit<ExecuteResult, 'data'> {
  data: T;
  reserved: number;
}

/** A registered plugin ready to be called. */
export interface PluginHarness {
  registry: Registry;
  engines: Engines;
  /** Runs `<plugin>.<operation>` (or a full endpoint id) with `input`. */
  endpoint<T = any>(operation: string, input: unknown, opts?: { signal?: AbortSignal; includeNative?: boolean }): Promise<HarnessResult<T>>;
  /** Runs a capability through its providers (optionally one `provider`). */
  capability<T = any>(id: string, input: unknown, opts?: { provider?: string; signal?: AbortSignal; includeNative?: boolean }): Promise<HarnessResult<T>>;
  /** The bytes behind a signed file-store link an endpoint answered (`…/files/<id>?expires=…&sig=…`). */
  file(url: string): Promise<Buffer>;
  close(): Promise<void>;
}

const quiet: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} };

function testKey(policy: Policy): KeyRecord {
  const now = new Date();
  return { id: 'key_test', name: 'test', prefix: 'cia_test', credits: Number.MAX_SAFE_INTEGER, budget: null, periodStart: now, periodSpent: 0, rateLimit: 1_000_000, active: true, policy, createdAt: now, updatedAt: now };
}

/**
 * Registers `plugin` (and `opts.plugins`) beside the given capability declarations and returns a
 * caller. Plugin tests use `pluginHarness` (the real catalogue); the engine's own tests pass their
 * made-up capabilities here, so they never load the catalogue (adding a capability touches no
 * engine file, issue 29).
 */
export async function engineHarness(plugin: PluginDef<any, any>, opts: HarnessOptions = {}, capabilities: CapabilityDef[] = []): Promise<PluginHarness> {
  const log = opts.log ?? quiet;
  const env = { ALLOW_PRIVATE_NETWORK: 'true', ...(opts.env ?? {}) };
  const dataDir = await mkdtemp(join(tmpdir(), 'cia-harness-'));
  const engines: EngineSet = createEngines({ dataDir, publicBaseUrl: () => 'http://127.0.0.1:0', env, log }, opts.engines as never);
  const limited = opts.timeLimitMs ? { ...plugin, endpoints: plugin.endpoints?.map((e) => ({ ...e, timeoutMs: opts.timeLimitMs })) } : plugin;
  const all = [limited, ...(opts.plugins ?? [])];
  const plugins = Object.fromEntries([['capabilities', async () => ({ default: { id: 'capabilities', apiVersion: 1 as const, title: 'Catalogue', summary: 'Capabilities.', capabilities } })], ...all.map((p) => [p.id, async () => ({ default: p })])]);
  let registry: Registry;
  try {
    registry = await buildRegistry({ plugins, providerOrder: opts.providerOrder }, { env, engines, log });
  } catch (err) {
    await engines.close();
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const ledger = new RecordingLedger();
  const executor = new Executor(registry, ledger, engines);
  const key = testKey(opts.policy ?? {});
  const run = async (target: Parameters<Executor['execute']>[0]['target'] | undefined, what: string, input: unknown, o: { provider?: string; signal?: AbortSignal; includeNative?: boolean } = {}): Promise<HarnessResult<any>> => {
    if (!target) throw new Error(`pluginHarness: ${what} is not registered.`);
    const requestId = randomUUID();
    const result = await executor.execute({ requestId, key, target, input, provider: o.provider, includeNative: o.includeNative, signal: o.signal ?? AbortSignal.timeout(60_000), log });
    return { ...result, reserved: ledger.reserved.get(requestId) ?? 0 };
  };
  return {
    registry,
    engines,
    endpoint: (operation, input, o) => {
      const id = operation.includes('.') ? operation : `${plugin.id}.${operation}`;
      return run(registry.resolve('endpoint', id), `endpoint '${id}'`, input, o);
    },
    capability: (id, input, o) => run(registry.resolve('capability', id), `capability '${id}'`, input, o),
    async file(url) {
      const u = new URL(url);
      const opened = await engines.files.open(u.pathname.split('/').pop()!, u.searchParams.get('expires')!, u.searchParams.get('sig')!);
      return Buffer.from(await opened.bytes());
    },
    async close() {
      await registry.close();
      await engines.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
