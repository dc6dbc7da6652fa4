/** Entry point: `npm start` (built) or `npm run dev`. Stops gracefully on SIGTERM/SIGINT. */
import 'reflect-metadata';
import { startService } from './start.js';
import { lowerHelperThreads } from '../core/engines/tools/helper-threads.js';
import { niceSetting } from '../core/engines/tools/settings.js';

const server = await startService(process.env).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
// Only this entry point, where this thread is the process's main one and serves every request
// (tests that start the service inside their own process keep their threads as they are); done
// before the instance says it listens, so whoever waits for that line finds them lowered.
await lowerHelperThreads(niceSetting(process.env, 'HELPER_THREADS_NICE', 5));
server.app.log.info({ url: server.url }, `listening on ${server.url}`);

// A promise some plugin forgot to handle must not take every caller's requests down with it
// (Node ends the process on one by default): log it loudly and keep serving.
process.on('unhandledRejection', (reason) => {
  server.app.log.error({ err: reason }, 'unhandled promise rejection (a bug: please report it)');
});

let signals = 0;
for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.on(sig, () => {
    signals += 1;
    if (signals > 1) process.exit(1);
    server.app.log.info({ signal: sig }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}
