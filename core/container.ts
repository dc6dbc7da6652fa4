/**
 * The one composition root (design: house style 4). Builds every service for one server
 * instance in a child tsyringe container, so tests can run several instances in one process.
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { pino, type Logger } from 'pino';
import { ByteBudget } from './engines/http/byte-budget.js';
import { loadSettings, type ServiceSettings } from './config.js';
import { TOKENS } from './tokens.js';
import { openPglite } from './storage/pglite.js';
import { openPostgres } from './storage/postgres.js';
import { migrate } from './storage/migrations.js';
import type { Db } from './storage/db.js';
import { KeyStore } from './keys/key-store.js';
import { MemoryLedger } from './credits/memory-ledger.js';
import { SqlLedger } from './credits/sql-ledger.js';
import { MemoryRateLimiter } from './ratelimit/memory.js';
import type { RateLimiter } from './ratelimit/types.js';
import { UsageLog } from './usage/usage-log.js';
import { createEngines, type EngineSet } from './engines/index.js';
import { buildRegistry, type BuildOptions } from './registry/build.js';
import type { ServiceConfig } from './registry/types.js';
import { Executor } from './execution/executor.js';
import { loadJobSettings } from './jobs/settings.js';
import { startBoss, withQueueSetupLock } from './jobs/boss.js';
import { JobService } from './jobs/service.js';
import { JobStore } from './jobs/store.js';
import { WebhookSecrets } from './webhooks/secret-store.js';
import { WebhookDeliveries } from './webhooks/delivery-store.js';
import { startWebhookDispatcher } from './webhooks/index.js';
import { MonitorStore } from './monitors/monitor-store.js';
import { MonitorRunner } from './monitors/monitor-runner.js';
import { MonitorScheduler } from './monitors/monitor-scheduler.js';

/** Inputs of the composition root. */
export interface ContainerOptions {
  env: Record<string, string | undefined>;
  serviceConfig: ServiceConfig;
  legacyTargets?: BuildOptions['legacyTargets'];
  /** Where the server is reachable, once it listens (for absolute download URLs). */
  publicBaseUrl: () => string;
  logger?: Logger;
  /** Test hook: substitute engines. */
  engineOverrides?: Parameters<typeof createEngines>[1];
}

/** A built service graph and the means to stop it in order. */
export interface Services {
  container: DependencyContainer;
  settings: ServiceSettings;
  /** Records where this instance listens, for the admin CLI (embedded store only). */
  advertise(url: string): void;
  close(): Promise<void>;
}

/** Opens storage, runs migrations, builds engines and the registry, wires the executor. */
export async function createServices(opts: ContainerOptions): Promise<Services> {
  const settings = loadSettings(opts.env);
  const logger = opts.logger ?? pino({ level: settings.logLevel, redact: ['req.headers.authorization', 'headers.authorization'] });
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch((err) => logger.error({ err }, 'shutdown step failed'));
  };
  try {
    const embedded = settings.databaseUrl ? undefined : await openPglite(join(settings.dataDir, 'db'), { template: settings.embeddedDbTemplate });
    const db: Db = embedded ?? (await openPostgres(settings.databaseUrl!));
    closers.push(() => db.close());
    await migrate(db);

    let limiter: RateLimiter;
    if (settings.redisUrl) {
      // ioredis loads only where Redis is configured (~40 modules at every embedded start otherwise).
      const { RedisRateLimiter } = await import('./ratelimit/redis.js');
      const redis = new RedisRateLimiter(settings.redisUrl, (err) => logger.error({ err: err.message }, 'Redis (rate limits) is unreachable; reconnecting'));
      await redis.ping();
      limiter = redis;
    } else limiter = new MemoryRateLimiter();
    closers.push(() => limiter.close());

    const ledger = db.kind === 'embedded' ? new MemoryLedger(db) : new SqlLedger(db);
    closers.push(() => ledger.close());
    const usage = new UsageLog(db, (err, dropped) => logger.error({ err, dropped }, 'usage rows could not be written and were dropped'));
    closers.push(() => usage.close());
    const keys = new KeyStore(db, db.kind === 'embedded' ? null : settings.keyCacheTtlMs);

    const bytesInFlight = new ByteBudget(settings.bodyBytesInFlightMax);
    const engines: EngineSet = createEngines(
      { dataDir: settings.dataDir, publicBaseUrl: opts.publicBaseUrl, env: opts.env, log: logger.child({ component: 'engines' }), bytesInFlight, db },
      opts.engineOverrides,
    );
    closers.push(() => engines.close());
    const registry = await buildRegistry(opts.serviceConfig, {
      env: opts.env,
      engines,
      log: logger.child({ component: 'plugins' }),
      legacyTargets: opts.legacyTargets,
    });
    closers.push(() => registry.close());
    const executor = new Executor(registry, ledger, engines);
    const monitors = new MonitorStore(db);

    const c = rootContainer.createChildContainer();
    c.register(TOKENS.Settings, { useValue: settings });
    c.register(TOKENS.Env, { useValue: opts.env });
    c.register(TOKENS.Logger, { useValue: logger });
    c.register(TOKENS.Db, { useValue: db });
    c.register(TOKENS.Keys, { useValue: keys });
    c.register(TOKENS.Ledger, { useValue: ledger });
    c.register(TOKENS.RateLimiter, { useValue: limiter });
    c.register(TOKENS.Usage, { useValue: usage });
    c.register(TOKENS.Engines, { useValue: engines });
    c.register(TOKENS.BytesInFlight, { useValue: bytesInFlight });
    c.register(TOKENS.Registry, { useValue: registry });
    c.register(TOKENS.Executor, { useValue: executor });
    c.register(TOKENS.Monitors, { useValue: monitors });
    c.register(TOKENS.ServiceConfig, { useValue: opts.serviceConfig });

    // Jobs (issue 25) on pg-boss in the same store; stopped first (closers run in reverse), so
    // running turns hand their work back while the ledger and database are still open.
    const jobSettings = loadJobSettings(opts.env, db.kind);
    const boss = await startBoss(db, settings.databaseUrl, jobSettings, (err) => logger.error({ err }, 'job queue error'));
    c.register(TOKENS.JobBoss, { useValue: boss });
    // Webhooks (job events, monitor changes) are queued on the jobs' pg-boss; the dispatcher
    // stops before it (closers run in reverse).
    const webhookSecrets = new WebhookSecrets(db);
    const webhookDeliveries = new WebhookDeliveries(db);
    c.register(TOKENS.WebhookSecrets, { useValue: webhookSecrets });
    c.register(TOKENS.WebhookDeliveries, { useValue: webhookDeliveries });
    // Each queue's table is made under the set-up lock (instances may start together).
    let dispatcher!: Awaited<ReturnType<typeof startWebhookDispatcher>>;
    await withQueueSetupLock(db, async () => {
      dispatcher = await startWebhookDispatcher({ boss, http: engines.http, secrets: webhookSecrets, deliveries: webhookDeliveries, env: opts.env, storeKind: db.kind, log: logger.child({ component: 'webhooks' }) });
    });
    c.register(TOKENS.JobWebhooks, { useValue: dispatcher });
    const jobs = new JobService({ store: new JobStore(db), registry, executor, ledger, keys, engines, log: logger, settings: jobSettings, boss, webhooks: () => c.resolve(TOKENS.JobWebhooks) });
    closers.push(() => jobs.stop());
    closers.push(() => dispatcher.stop());
    c.register(TOKENS.Jobs, { useValue: jobs });
    await jobs.start();
    // Change monitors (issue 27): due ticks go on the same queue, changes to the same dispatcher;
    // the scheduler stops before the queue does.
    const monitorLog = logger.child({ component: 'monitors' });
    const monitorRunner = new MonitorRunner({ store: monitors, keys, registry, executor, usage, webhooks: dispatcher, log: monitorLog, runTimeoutMs: 180_000 });
    const scheduler = new MonitorScheduler(monitors, monitorRunner, boss, { pollMs: settings.monitorPollMs, batch: 20, runTimeoutMs: 180_000, log: monitorLog });
    await withQueueSetupLock(db, () => scheduler.start());
    closers.push(() => scheduler.stop());
    return { container: c, settings, advertise: (url) => embedded?.lock?.advertise(url), close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
