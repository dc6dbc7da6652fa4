/**
 * Starts one instance: services, app, listen, and an orderly stop that first refuses new work,
 * lets requests in flight finish (their reservations are settled or released by the executor),
 * then stops plugins, engines and storage.
 */
import 'reflect-metadata';
import type { FastifyInstance } from 'fastify';
import { createServices, type ContainerOptions } from '../core/container.js';
import { buildServer } from './app.js';
import { TOKENS } from '../core/tokens.js';
import { LEGACY_ROUTES } from './legacy-routes.js';
import serviceConfig from '../plugins.config.js';
import { listenMetrics } from './metrics/wiring.js';
import { join } from 'node:path';
import { recoverJournals, UsageJournal } from '../core/usage/journal.js';
import { loadRouteAliases } from './v1/route-aliases.js';
import { loadSettings, prepareDataDir } from '../core/config.js';

/** A running instance. */
export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Address of the METRICS_PORT listener, when one is configured. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Boots the service with the given environment. */
export async function startService(env: Record<string, string | undefined>, extra: Partial<ContainerOptions> = {}): Promise<RunningServer> {
  let url = '';
  let draining = false;
  // A broken alias table stops boot before storage opens (the lanes read it again as they register).
  loadRouteAliases(env.V1_ROUTE_ALIASES, LEGACY_ROUTES);
  prepareDataDir(loadSettings(env).dataDir);
  const services = await createServices({
    env,
    serviceConfig: extra.serviceConfig ?? serviceConfig,
    legacyTargets: LEGACY_ROUTES,
    publicBaseUrl: () => services?.settings.publicBaseUrl ?? url,
    ...extra,
  });
  let app: FastifyInstance;
  try {
    // Usage rows of calls a killed predecessor had in flight (issue 18 finding 9), then our own journal.
    const usage = services.container.resolve(TOKENS.Usage);
    const journalDir = join(services.settings.dataDir, 'usage-journal');
    const recovered = await recoverJournals(journalDir, services.container.resolve(TOKENS.Db), (rows) => usage.insertRecovered(rows));
    const log = services.container.resolve(TOKENS.Logger);
    if (recovered > 0) log.warn({ recovered }, 'usage rows of a stopped instance recovered from its journal');
    const onJournalError = (err: unknown, during: 'write' | 'answer') =>
      log.error({ err }, during === 'write' ? 'the usage journal could not be written; rows still go to the database, but a kill now could lose them' : 'an answer failed as the usage journal let it go');
    usage.attachJournal(UsageJournal.start(journalDir, await usage.maxId(), onJournalError));
    app = await buildServer(services, { isDraining: () => draining });
    await app.listen({ port: services.settings.port, host: services.settings.host });
  } catch (err) {
    await services.close();
    throw err;
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : services.settings.port;
  const host = services.settings.host.includes(':') ? `[${services.settings.host}]` : services.settings.host;
  url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  services.advertise(url);
  const metricsListener = services.settings.metricsPort === undefined ? undefined : await listenMetrics(app.metrics, services.settings.metricsPort, services.settings.host).catch(async (err) => {
    await app.close();
    await services.close();
    throw err;
  });
  let stopping: Promise<void> | undefined;
  return {
    app,
    url,
    metricsUrl: metricsListener && `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${metricsListener.port}`,
    stop() {
      stopping ??= (async () => {
        // Issue 18 finding 9: the listener stays open while draining, so a new connection gets the
        // documented 503 SHUTTING_DOWN (and /readyz 503) instead of a refused connection; it
        // closes once SHUTDOWN_DELAY_MS has passed and the calls in flight are done, or the grace
        // period is over.
        draining = true;
        const started = Date.now();
        const graceMs = services.settings.shutdownGraceMs;
        await sleep(Math.min(services.settings.shutdownDelayMs, graceMs));
        while (app.inFlight() > 0 && Date.now() - started < graceMs) await sleep(20);
        // With no call in flight, any connection left carries no request: an idle keep-alive one,
        // or one a client opened and has sent nothing on yet (after a hang-up, undici opens a fresh
        // one). Node closes only the first kind itself, so the second held the stop for the whole
        // grace period; nothing is cut by closing both once the listener has stopped (checked, so
        // no connection accepted before that is left behind).
        let grace: NodeJS.Timeout;
        const cutConnections = (): void => {
          if (app.server.listening) grace = setTimeout(cutConnections, 5).unref();
          else app.server.closeAllConnections?.();
        };
        grace = setTimeout(cutConnections, app.inFlight() === 0 ? 0 : Math.max(0, graceMs - (Date.now() - started))).unref();
        await app.close();
        clearTimeout(grace);
        // Running job turns hand their items back to the queue for another instance (issue 25).
        await services.container.resolve(TOKENS.Jobs).stop();
        // Calls cut off by the grace period are aborted; let them release their reservations first.
        const idle = await services.container.resolve(TOKENS.Executor).idle(services.settings.shutdownGraceMs);
        if (!idle) app.log.error('calls still running at shutdown; their reservations are released at the next start (PostgreSQL: by the stale-reservation sweep)');
        metricsListener?.server.close();
        await services.close();
      })();
      return stopping;
    },
  };
}
