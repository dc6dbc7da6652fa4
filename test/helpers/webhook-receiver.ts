/**
 * A webhook receiver on loopback for the webhook tests: records every request it gets and answers
 * by path: `/ok` 200, `/flaky` 500 on the first request of each webhook-id then 200, `/down`
 * always 503, `/hold` keeps the request open until `release()`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveLoopback, type LoopbackServer } from '../../core/testing/loopback.js';

/** One request the receiver got. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The running receiver. */
export interface WebhookReceiver extends LoopbackServer {
  received: Received[];
  /** Resolves once `n` requests have arrived on `path`, or rejects after `ms`. */
  waitFor(path: string, n: number, ms?: number): Promise<Received[]>;
  /** Answers every held request with 200. */
  release(): void;
}

/** Starts a receiver. */
export async function startReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  const seen = new Set<string>();
  const waiters: (() => void)[] = [];
  const srv = await serveLoopback((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      received.push({ path, headers, body: Buffer.concat(chunks).toString('utf8') });
      for (const w of waiters.splice(0)) w();
      if (path === '/hold') return void held.push(res);
      const firstTime = !seen.has(headers['webhook-id'] ?? '');
      seen.add(headers['webhook-id'] ?? '');
      const status = path === '/ok' ? 200 : path === '/flaky' ? (firstTime ? 500 : 200) : 503;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(String(status));
    });
  });
  const on = (path: string) => received.filter((r) => r.path === path);
  return {
    ...srv,
    received,
    async waitFor(path, n, ms = 30_000) {
      const until = Date.now() + ms;
      while (on(path).length < n) {
        if (Date.now() > until) throw new Error(`receiver: ${on(path).length} of ${n} requests on ${path}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 200);
        });
      }
      return on(path);
    },
    release() {
      for (const res of held.splice(0)) res.writeHead(200).end('ok');
    },
  };
}
