/** Typed DI tokens (design: house style 4); resolved only in core/container.ts and server/. */
import type { InjectionToken } from 'tsyringe';
import type { ServiceSettings } from './config.js';
import type { Db } from './storage/db.js';
import type { KeyStore } from './keys/key-store.js';
import type { Ledger } from './credits/ledger.js';
import type { RateLimiter } from './ratelimit/types.js';
import type { UsageLog } from './usage/usage-log.js';
import type { Registry } from './registry/registry.js';
import type { MonitorStore } from './monitors/monitor-store.js';
import type { Executor } from './execution/executor.js';
import type { EngineSet } from './engines/index.js';
import type { ServiceConfig } from './registry/types.js';
import type { Logger } from 'pino';
import type { ByteBudget } from './engines/http/byte-budget.js';

/** Every service the server resolves. */
export const TOKENS = {
  Settings: Symbol('Settings') as InjectionToken<ServiceSettings>,
  Env: Symbol('Env') as InjectionToken<Record<string, string | undefined>>,
  Logger: Symbol('Logger') as InjectionToken<Logger>,
  Db: Symbol('Db') as InjectionToken<Db>,
  Keys: Symbol('Keys') as InjectionToken<KeyStore>,
  Ledger: Symbol('Ledger') as InjectionToken<Ledger>,
  RateLimiter: Symbol('RateLimiter') as InjectionToken<RateLimiter>,
  Usage: Symbol('Usage') as InjectionToken<UsageLog>,
  Registry: Symbol('Registry') as InjectionToken<Registry>,
  /** Change monitors (issue 27). */
  Monitors: Symbol('Monitors') as InjectionToken<MonitorStore>,
  Executor: Symbol('Executor') as InjectionToken<Executor>,
  Engines: Symbol('Engines') as InjectionToken<EngineSet>,
  ServiceConfig: Symbol('ServiceConfig') as InjectionToken<ServiceConfig>,
  /** Bytes received and held at once: request bodies and URL downloads (BODY_BYTES_IN_FLIGHT_MAX). */
  BytesInFlight: Symbol('BytesInFlight') as InjectionToken<ByteBudget>,
} as const;
