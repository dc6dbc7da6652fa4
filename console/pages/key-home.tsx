/** The key holder's page: balance and budget, a usage chart, recent calls. */
import { useMemo } from 'preact/hooks';
import type { Me } from '../api.js';
import { TimeChart, colorOf } from '../components/chart.js';
import { num, Status, useGet, when } from '../components/common.js';

interface Balance { keyId: string; name: string; credits: number; reserved: number; budget: number | null; spent: number; budgetRemaining: number | null; periodEnd: string; rateLimit: { limit: number } }
interface Row { requestId: string; lane: string; objectType: string; objectId: string; provider: string | null; status: number; code: string | null; credits: number; latencyMs: number; createdAt: string }

/** The balance figure and budget, shared with the playground. */
export function BalanceTiles(props: { balance?: Balance }) {
  const b = props.balance;
  return (
    <dl class="tiles" aria-label="Balance">
      <div><dt>Credits</dt><dd data-figure="balance">{b ? num(b.credits) : '–'}</dd></div>
      <div><dt>Reserved now</dt><dd>{b ? num(b.reserved) : '–'}</dd></div>
      <div><dt>Monthly budget</dt><dd>{b ? (b.budget === null ? 'none' : `${num(b.spent)} of ${num(b.budget)} spent`) : '–'}</dd></div>
      <div><dt>Rate limit</dt><dd>{b ? `${num(b.rateLimit.limit)} / min` : '–'}</dd></div>
    </dl>
  );
}

/** The key holder's home. */
export function KeyHome(_props: { me: Me }) {
  const balance = useGet<{ data: Balance }>('/api/v2/balance');
  const usage = useGet<{ data: { items: Row[] } }>('/api/v2/usage?limit=500');
  const rows = usage.data?.data.items ?? [];
  const chart = useMemo(() => {
    // The last 24 hours by the hour, counted from the key's own recent calls.
    const step = 3_600_000;
    const end = Math.floor(Date.now() / step) * step;
    const times: number[] = [];
    for (let t = end - 23 * step; t <= end; t += step) times.push(t / 1000);
    const calls = times.map(() => 0);
    const credits = times.map(() => 0);
    for (const r of rows) {
      const i = (Math.floor(Date.parse(r.createdAt) / step) * step - (end - 23 * step)) / step;
      if (i >= 0 && i < times.length) {
        calls[i]! += 1;
        credits[i]! += r.credits;
      }
    }
    return { times, series: [{ label: 'Calls', values: calls, color: colorOf(0) }, { label: 'Credits', values: credits, color: colorOf(2) }], total: calls.reduce((a, b) => a + b, 0) };
  }, [rows]);
  return (
    <div>
      <Status error={balance.error || usage.error} />
      <BalanceTiles balance={balance.data?.data} />
      <TimeChart title="Your calls in the last 24 hours" times={chart.times} series={chart.series} summary={`${chart.total} calls in the last 24 hours.`} />
      <h2>Recent calls</h2>
      <table>
        <thead><tr><th scope="col">When</th><th scope="col">Lane</th><th scope="col">Target</th><th scope="col">Provider</th><th scope="col">Status</th><th scope="col">Credits</th><th scope="col">Latency</th></tr></thead>
        <tbody>
          {rows.slice(0, 50).map((r) => (
            <tr key={r.requestId}><td>{when(r.createdAt)}</td><td>{r.lane}</td><td>{r.objectId}</td><td>{r.provider ?? ''}</td><td>{r.status}{r.code ? ` ${r.code}` : ''}</td><td>{num(r.credits)}</td><td>{num(r.latencyMs)} ms</td></tr>
          ))}
          {rows.length === 0 && <tr><td colSpan={7}>No calls yet.</td></tr>}
        </tbody>
      </table>
    </div>
  );
}
