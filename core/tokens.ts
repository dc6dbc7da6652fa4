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
import type PgBoss from 'pg-boss';
import type { JobService } from './jobs/service.js';
import type { JobWebhookSink } from './jobs/webhooks.js';
import type { WebhookSecrets } from './webhooks/secret-store.js';
import type { WebhookDeliveries } from './webhooks/delivery-store.js';

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
  /** Bytes received and held at once: request bodies and every fetched body, downloads to files included (BODY_BYTES_IN_FLIGHT_MAX). */
  BytesInFlight: Symbol('BytesInFlight') as InjectionToken<ByteBudget>,
  /** Jobs: submit, read, cancel, workers (issue 25). */
  Jobs: Symbol('Jobs') as InjectionToken<JobService>,
  /** The pg-boss instance jobs run on (webhook deliveries may queue on it too). */
  JobBoss: Symbol('JobBoss') as InjectionToken<PgBoss>,
  /** Where job events go; a no-op until the webhook dispatcher is registered over it. */
  JobWebhooks: Symbol('JobWebhooks') as InjectionToken<JobWebhookSink>,
  /** Webhook signing secrets, one per key (issue 25). */
  WebhookSecrets: Symbol('WebhookSecrets') as InjectionToken<WebhookSecrets>,
  /** Webhook events and attempts, as `GET /api/v2/jobs/:id/deliveries` lists them. */
  WebhookDeliveries: Symbol('WebhookDeliveries') as InjectionToken<WebhookDeliveries>,
} as const;
