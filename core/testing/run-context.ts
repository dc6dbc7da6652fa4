/**
 * A run context for unit tests of a plugin's own functions (a client, a parser): what the executor
 * would hand an endpoint, with a usage recorder and the native payload captured for assertions.
 */
import type { Engines } from '../engines/types.js';
import type { PluginLogger, RunContext } from '../plugin/types.js';
import { usageRecorder } from '../plugin/usage-recorder.js';

/** A context plus what the code under test reported through it. */
export interface TestRunContext<S = unknown> {
  ctx: RunContext<S>;
  /** Units reported with `ctx.usage.add`. */
  units: Record<string, number>;
  /** What the code asked to hold credits for with `ctx.reserveFor`, in order. */
  reservedFor: Record<string, number>[];
  /** What the code reported to a caller with `ctx.measured`, in order. */
  measured: Record<string, number>[];
  /** The last payload passed to `ctx.setNative`. */
  native(): unknown;
  /** Log lines written through `ctx.log`, as `[level, message, fields]`. */
  logs: [string, string, object][];
}

/** Options of {@link runContext}. */
export interface RunContextOptions<S> {
  /** The plugin id the context runs as (names the provider in messages); default `test`. */
  provider?: string;
  config?: Record<string, unknown>;
  state?: S;
  /**
   * Engines the code may use (e.g. `{ http }`); anything else throws when touched. Each may be a
   * partial stand-in with just the methods the code calls (`{ files: { put } }`), so a test never
   * needs a cast to build one.
   */
  engines?: { [K in keyof Engines]?: Partial<Engines[K]> };
  signal?: AbortSignal;
  requestId?: string;
  /** Answers `ctx.call(capability, input)`; default: throws, naming the capability. */
  call?: (capability: string, input: unknown) => Promise<unknown>;
}

/** Builds a context; engines not given throw a clear error when the code touches them. */
export function runContext<S = unknown>(opts: RunContextOptions<S> = {}): TestRunContext<S> {
  const units: Record<string, number> = {};
  const reservedFor: Record<string, number>[] = [];
  const measured: Record<string, number>[] = [];
  const logs: TestRunContext['logs'] = [];
  let native: unknown;
  const given = opts.engines ?? {};
  const engines = new Proxy(given, {
    get(target, name: string) {
      if (name in target) return (target as Record<string, unknown>)[name];
      throw new Error(`runContext: engine '${name}' was not given; pass it in options.engines.`);
    },
  }) as Engines;
  const line = (level: string) => (obj: object | string, msg?: string) => {
    logs.push(typeof obj === 'string' ? [level, obj, {}] : [level, msg ?? '', obj]);
  };
  const log: PluginLogger = { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
  const ctx: RunContext<S> = {
    config: (opts.config ?? {}) as RunContext<S>['config'],
    state: opts.state as S,
    engines,
    log,
    signal: opts.signal ?? AbortSignal.timeout(30_000),
    requestId: opts.requestId ?? 'test-request',
    provider: opts.provider ?? 'test',
    usage: usageRecorder(units),
    reserveFor: async (wanted) => {
      reservedFor.push({ ...wanted });
    },
    measured: async (units) => {
      measured.push({ ...units });
    },
    setNative(payload) {
      native = payload;
    },
    call: async <T>(capability: string, input: unknown) => {
      if (!opts.call) throw new Error(`runContext: ctx.call('${capability}') was not expected; pass options.call.`);
      return (await opts.call(capability, input)) as T;
    },
  };
  return { ctx, units, reservedFor, measured, native: () => native, logs };
}
