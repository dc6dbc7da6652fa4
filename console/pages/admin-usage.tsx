/** Usage explorer over every key (or one), with the API's filters and CSV export; a key's ledger is on its page. */
import { useState } from 'preact/hooks';
import { qs } from '../api.js';
import { csvCell, download, num, Status, useGet, when } from '../components/common.js';

interface Row { requestId: string; keyId: string; lane: string; objectType: string; objectId: string; provider: string | null; status: number; code: string | null; credits: number; latencyMs: number; requestSource: string; createdAt: string }
const COLUMNS: (keyof Row)[] = ['createdAt', 'requestId', 'keyId', 'lane', 'objectType', 'objectId', 'provider', 'status', 'code', 'credits', 'latencyMs', 'requestSource'];

/** The usage page. */
export function UsagePage(props: { query: URLSearchParams }) {
  const initial = { keyId: props.query.get('keyId') ?? '', objectType: '', objectId: '', provider: props.query.get('provider') ?? '', status: '', page: '1', limit: '100' };
  const [form, setForm] = useState(initial);
  const [applied, setApplied] = useState(initial);
  const rows = useGet<{ items: Row[] }>(`/admin/usage${qs(applied)}`);
  const field = (k: keyof typeof form) => ({ value: form[k], onInput: (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value }) });
  const items = rows.data?.items ?? [];
  const exportCsv = () => {
    const lines = [COLUMNS.join(','), ...items.map((r) => COLUMNS.map((c) => csvCell(r[c])).join(','))];
    download(`usage-page-${applied.page}.csv`, lines.join('\r\n') + '\r\n');
  };
  return (
    <div>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); setApplied({ ...form, page: '1' }); }} aria-label="Usage filters">
        <label for="u-key">Key id</label><input id="u-key" {...field('keyId')} />
        <label for="u-type">Object type</label>
        <select id="u-type" value={form.objectType} onChange={(e) => setForm({ ...form, objectType: (e.target as HTMLSelectElement).value })}>
          <option value="">any</option><option value="capability">capability</option><option value="endpoint">endpoint</option><option value="operation">operation</option><option value="provider">provider</option>
        </select>
        <label for="u-id">Object id</label><input id="u-id" {...field('objectId')} />
        <label for="u-provider">Provider</label><input id="u-provider" {...field('provider')} />
        <label for="u-status">Status (success, error or a code)</label><input id="u-status" {...field('status')} />
        <button type="submit">Apply</button>
      </form>
      <div class="row">
        <button type="button" onClick={exportCsv} disabled={items.length === 0}>Export this page as CSV</button>
        <button type="button" disabled={applied.page === '1'} onClick={() => setApplied({ ...applied, page: String(Number(applied.page) - 1) })}>Previous page</button>
        <span>Page {applied.page}</span>
        <button type="button" disabled={items.length < Number(applied.limit)} onClick={() => setApplied({ ...applied, page: String(Number(applied.page) + 1) })}>Next page</button>
      </div>
      <Status error={rows.error} />
      <table>
        <thead><tr><th scope="col">When</th><th scope="col">Key</th><th scope="col">Lane</th><th scope="col">Target</th><th scope="col">Provider</th><th scope="col">Status</th><th scope="col">Credits</th><th scope="col">Latency</th><th scope="col">Source</th></tr></thead>
        <tbody>
          {items.map((r) => (
            <tr key={r.requestId}>
              <td>{when(r.createdAt)}</td><td class="mono">{r.keyId}</td><td>{r.lane}</td><td>{r.objectType}: {r.objectId}</td><td>{r.provider ?? ''}</td>
              <td>{r.status}{r.code ? ` ${r.code}` : ''}</td><td>{num(r.credits)}</td><td>{num(r.latencyMs)} ms</td><td>{r.requestSource}</td>
            </tr>
          ))}
          {items.length === 0 && <tr><td colSpan={9}>No calls match.</td></tr>}
        </tbody>
      </table>
    </div>
  );
}
