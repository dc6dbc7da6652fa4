/** Providers: configured or not, the settings missing (names only), recent calls, error rate and fallbacks. */
import { num, Status, useGet } from '../components/common.js';

interface Provider { id: string; title: string; managed: boolean; configured: boolean; missingSettings: string[]; capabilities: string[]; callsLastDay: number; errorsLastDay: number; errorRateLastDay: number; fallbacksSinceStart: number }

/** The providers page. */
export function Providers() {
  const list = useGet<{ items: Provider[] }>('/admin/providers');
  return (
    <div>
      <Status error={list.error} />
      <table>
        <thead><tr><th scope="col">Provider</th><th scope="col">Configured</th><th scope="col">Missing settings</th><th scope="col">Capabilities</th><th scope="col">Calls (24 h)</th><th scope="col">Error rate (24 h)</th><th scope="col">Fallbacks (since start)</th></tr></thead>
        <tbody>
          {(list.data?.items ?? []).map((p) => (
            <tr key={p.id}>
              <th scope="row">{p.id}<br /><small>{p.title}{p.managed ? ' · runs here' : ''}</small></th>
              <td class={p.configured ? 'ok' : 'error'}>{p.configured ? 'Yes' : 'No'}</td>
              <td class="mono">{p.missingSettings.join(', ')}</td>
              <td>{p.capabilities.join(', ')}</td>
              <td><a href={`/console/app/usage?provider=${encodeURIComponent(p.id)}`}>{num(p.callsLastDay)}<span class="sr-only"> calls of {p.id}: show them</span></a></td>
              <td>{p.callsLastDay ? `${(p.errorRateLastDay * 100).toFixed(1)} %` : '–'}</td>
              <td>{num(p.fallbacksSinceStart)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
