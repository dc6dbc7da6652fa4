/**
 * bench:abuse's attacker, run in a worker thread of its own (bench/abuse/attacker-thread.ts) or,
 * to compare, on the bench's main thread. A real attacker is another program: sending thousands
 * of requests and reading their answers on the thread that also times the victim's calls and
 * `/healthz` made each victim answer wait behind the attacker's own callbacks, so the bench
 * measured part of its own client as the instance's latency (made-up ids: victim p99 2.0 ms with
 * the attacker on the main thread; see the README's bench:abuse row for the split).
 */
import { Agent, request } from 'node:http';

/** What one attack sends: serialisable, so a worker thread can be given it. */
export interface AttackPlan {
  url: string;
  key: string;
  path: string;
  /** Requests kept in flight. */
  parallel: number;
  /** This many requests in all (a flood) instead of `parallel` held until stopped. */
  total?: number;
  /** The same body every time (already serialised). */
  body?: Uint8Array;
  /** A body that differs per request: `template` with each `token` replaced by a fresh random word. */
  fresh?: { template: string; token: string };
}

/** A random lower-case word, e.g. the tail of a made-up id. */
const randomWord = () => Math.random().toString(36).slice(2);

/**
 * Sends requests of `plan` until `stop` aborts (or its total is sent); returns how many got each
 * status (aborted ones as "hung up"). Sent with `node:http`, not `fetch`: fetch copies every body
 * it sends, up to 27 MB per request here.
 */
export async function runAttackPlan(plan: AttackPlan, stop: AbortSignal): Promise<Map<string, number>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const statuses = new Map<string, number>();
  const note = (s: string) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
  const target = new URL(plan.path, plan.url);
  const bodyOf = (): Uint8Array | string => (plan.fresh ? plan.fresh.template.replaceAll(plan.fresh.token, randomWord()) : (plan.body ?? ''));
  const once = (bytes: Uint8Array | string) =>
    new Promise<number>((resolve, reject) => {
      const headers = { authorization: `Bearer ${plan.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(bytes) };
      const req = request(target, { method: 'POST', headers, agent, signal: stop }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', reject);
      });
      req.once('error', reject);
      req.end(bytes);
    });
  let sent = 0;
  const worker = async () => {
    while (!stop.aborted && (plan.total === undefined || sent < plan.total)) {
      sent += 1;
      try {
        note(String(await once(bodyOf())));
      } catch {
        note(stop.aborted ? 'hung up' : 'network error');
      }
    }
  };
  await Promise.all(Array.from({ length: plan.parallel }, worker));
  agent.destroy();
  return statuses;
}
