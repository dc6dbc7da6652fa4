/** Engines: queue depth, active jobs, pool size, jobs and restarts, the figures /metrics reports. */
import { num, Status, useGet } from '../components/common.js';

type Figures = { engine: string } & Record<string, number>;
const COLUMNS: [string, string][] = [['queue_depth', 'Queue depth'], ['active_jobs', 'Active jobs'], ['pool_size', 'Pool size'], ['jobs', 'Jobs run'], ['restarts', 'Restarts'], ['recycles', 'Recycles'], ['kills', 'Kills'], ['crashes', 'Crashes']];

/** The engines page. */
export function Engines() {
  const list = useGet<{ items: Figures[] }>('/admin/engines');
  const items = list.data?.items ?? [];
  return (
    <div>
      <p>Engines start on first use; one not started yet is not listed.</p>
      <button type="button" onClick={list.reload}>Refresh</button>
      <Status error={list.error} />
      <table>
        <thead><tr><th scope="col">Engine</th>{COLUMNS.map(([, l]) => <th scope="col" key={l}>{l}</th>)}</tr></thead>
        <tbody>
          {items.map((e) => <tr key={e.engine}><th scope="row">{e.engine}</th>{COLUMNS.map(([k]) => <td key={k}>{k in e ? num(e[k]) : '–'}</td>)}</tr>)}
          {items.length === 0 && <tr><td colSpan={COLUMNS.length + 1}>No engine started yet.</td></tr>}
        </tbody>
      </table>
    </div>
  );
}
