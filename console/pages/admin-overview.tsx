/** Overview: calls, errors, credits and latency over time from GET /admin/stats, and the top keys. */
import { useMemo, useState } from 'preact/hooks';
import { qs } from '../api.js';
import { TimeChart, colorOf, type Series } from '../components/chart.js';
import { num, useGet } from '../components/common.js';

const RANGES = { hour: { ms: 3_600_000, bucket: 'hour', label: 'Last hour' }, day: { ms: 86_400_000, bucket: 'hour', label: 'Last day' }, month: { ms: 30 * 86_400_000, bucket: 'day', label: 'Last 30 days' } } as const;
type Range = keyof typeof RANGES;
const GROUPS = ['lane', 'capability', 'provider', 'status'] as const;

interface Bucket { start: string; calls: number; errors: number; credits: number; p50Ms: number | null; p95Ms: number | null; groups?: { key: string; calls: number; errors: number; credits: number }[] }

function statsPath(range: Range, groupBy: string, now: number): string {
  const r = RANGES[range];
  return `/admin/stats${qs({ from: new Date(now - r.ms).toISOString(), to: new Date(now).toISOString(), bucket: r.bucket, groupBy })}`;
}

/** The overview page. */
export function Overview() {
  const [range, setRange] = useState<Range>('day');
  const [groupBy, setGroupBy] = useState<string>('lane');
  const [now, setNow] = useState(() => Date.now());
  const main = useGet<{ buckets: Bucket[] }>(statsPath(range, groupBy, now));
  const byKey = useGet<{ buckets: Bucket[] }>(statsPath(range, 'key', now));
  const keys = useGet<{ items: { id: string; name: string }[] }>('/admin/keys?limit=500');
  const buckets = main.data?.buckets ?? [];
  const times = useMemo(() => buckets.map((b) => Date.parse(b.start) / 1000), [buckets]);
  const total = buckets.reduce((a, b) => ({ calls: a.calls + b.calls, errors: a.errors + b.errors, credits: a.credits + b.credits }), { calls: 0, errors: 0, credits: 0 });
  const latest = [...buckets].reverse().find((b) => b.calls > 0);
  const series = useMemo(() => {
    const callSeries: Series[] = [
      { label: 'Calls', values: buckets.map((b) => b.calls), color: colorOf(0) },
      { label: 'Errors', values: buckets.map((b) => b.errors), color: colorOf(1) },
    ];
    const credits: Series[] = [{ label: 'Credits', values: buckets.map((b) => b.credits), color: colorOf(2) }];
    const latency: Series[] = [
      { label: 'p50 ms', values: buckets.map((b) => b.p50Ms), color: colorOf(0) },
      { label: 'p95 ms', values: buckets.map((b) => b.p95Ms), color: colorOf(3) },
    ];
    const totals = new Map<string, number>();
    for (const b of buckets) for (const g of b.groups ?? []) totals.set(g.key, (totals.get(g.key) ?? 0) + g.calls);
    const top = [...totals].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k]) => k);
    const grouped: Series[] = top.map((k, i) => ({ label: k || '(none)', values: buckets.map((b) => b.groups?.find((g) => g.key === k)?.calls ?? 0), color: colorOf(i) }));
    return { callSeries, credits, latency, grouped, totals };
  }, [buckets]);
  const names = new Map((keys.data?.items ?? []).map((k) => [k.id, k.name]));
  const topKeys = useMemo(() => {
    const m = new Map<string, { calls: number; errors: number; credits: number }>();
    for (const b of byKey.data?.buckets ?? []) for (const g of b.groups ?? []) {
      const t = m.get(g.key) ?? { calls: 0, errors: 0, credits: 0 };
      m.set(g.key, { calls: t.calls + g.calls, errors: t.errors + g.errors, credits: t.credits + g.credits });
    }
    return [...m].sort((a, b) => b[1].calls - a[1].calls).slice(0, 10);
  }, [byKey.data]);

  return (
    <div>
      <form class="toolbar" onSubmit={(e) => { e.preventDefault(); setNow(Date.now()); }}>
        <label for="range">Range</label>
        <select id="range" value={range} onChange={(e) => { setRange((e.target as HTMLSelectElement).value as Range); setNow(Date.now()); }}>
          {Object.entries(RANGES).map(([k, r]) => <option key={k} value={k}>{r.label}</option>)}
        </select>
        <label for="groupby">Split by</label>
        <select id="groupby" value={groupBy} onChange={(e) => setGroupBy((e.target as HTMLSelectElement).value)}>
          {GROUPS.map((g) => <option key={g} value={g}>{g}</option>)}
        </select>
        <button type="submit">Refresh</button>
      </form>
      {main.error && <p role="alert" class="error">{main.error}</p>}
      <dl class="tiles" aria-label="Totals for the range">
        <div><dt>Calls</dt><dd data-figure="calls">{num(total.calls)}</dd></div>
        <div><dt>Errors</dt><dd data-figure="errors">{num(total.errors)}</dd></div>
        <div><dt>Credits charged</dt><dd data-figure="credits">{num(total.credits)}</dd></div>
        <div><dt>Latency p50 / p95 (latest bucket)</dt><dd>{latest ? `${num(latest.p50Ms)} / ${num(latest.p95Ms)} ms` : '–'}</dd></div>
      </dl>
      {buckets.length > 0 && (
        <div class="charts">
          <TimeChart title="Calls and errors" times={times} series={series.callSeries} summary={`${total.calls} calls, ${total.errors} errors in the range.`} />
          <TimeChart title="Credits charged" times={times} series={series.credits} summary={`${total.credits} credits charged in the range.`} />
          <TimeChart title="Latency" times={times} series={series.latency} summary={latest ? `Latest p50 ${latest.p50Ms} ms, p95 ${latest.p95Ms} ms.` : 'No calls.'} />
          <TimeChart title={`Calls by ${groupBy}`} times={times} series={series.grouped} summary={[...series.totals].map(([k, v]) => `${k || '(none)'}: ${v}`).join(', ') || 'No calls.'} />
        </div>
      )}
      <h2>Top keys</h2>
      <table>
        <caption class="sr-only">Keys with the most calls in the range</caption>
        <thead><tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Calls</th><th scope="col">Errors</th><th scope="col">Credits</th></tr></thead>
        <tbody>
          {topKeys.map(([id, t]) => (
            <tr key={id}><td><a href={`/console/app/keys?id=${encodeURIComponent(id)}`}>{id}</a></td><td>{names.get(id) ?? ''}</td><td>{num(t.calls)}</td><td>{num(t.errors)}</td><td>{num(t.credits)}</td></tr>
          ))}
          {topKeys.length === 0 && <tr><td colSpan={5}>No calls in the range.</td></tr>}
        </tbody>
      </table>
    </div>
  );
}
