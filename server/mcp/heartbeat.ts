/**
 * Progress for a long synchronous tool call (issue 25: "optionally any call running longer than a
 * few seconds"): work that is not stepwise cannot say how far it got, but a client that sent a
 * progress token still hears every few seconds that the call is alive, which also lets SDK clients
 * that reset their request timeout on progress wait for a slow PDF or AI image.
 */
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';

/** How often a running call says it is alive. */
export const HEARTBEAT_MS = 5000;

/** Sends `notifications/progress` every {@link HEARTBEAT_MS} until the returned stop is called. */
export function startHeartbeat(progressToken: string | number, notify: (n: ServerNotification) => Promise<void>): () => void {
  let beats = 0;
  const timer = setInterval(() => {
    beats += 1;
    // No total: the work's size is unknown; `progress` counts the beats so it strictly increases.
    void notify({ method: 'notifications/progress', params: { progressToken, progress: beats, message: `Still running (${(beats * HEARTBEAT_MS) / 1000} s)` } }).catch(() => undefined);
  }, HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}
