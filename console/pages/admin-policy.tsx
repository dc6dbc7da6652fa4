/**
 * Policy of one key: every provider and capability with its own rule (inherit, allow, block), the
 * effective decision and the rule that made it, as GET /admin/keys/:id/policy reports them from
 * the decision function the API itself uses.
 */
import { useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { navigate } from '../router.js';
import { Status, useGet } from '../components/common.js';

interface Policy { allow?: string[]; block?: string[] }
interface Entry { id: string; title: string; allowed: boolean; by: 'key' | 'deployment' | 'default'; rule?: string; configured?: boolean; allowedProviders?: string[]; providers?: string[] }
interface Report { keyId: string; policy: Policy; defaultPolicy: Policy; providers: Entry[]; capabilities: Entry[] }

function ruleText(e: Entry): string {
  if (e.by === 'default') return 'no rule: allowed by default';
  return `${e.by === 'key' ? "key's" : "deployment's"} rule on ${e.rule}`;
}

function own(policy: Policy, id: string): 'inherit' | 'allow' | 'block' {
  if (policy.block?.includes(id)) return 'block';
  if (policy.allow?.includes(id)) return 'allow';
  return 'inherit';
}

function withRule(policy: Policy, id: string, to: 'inherit' | 'allow' | 'block'): Policy {
  const allow = (policy.allow ?? []).filter((x) => x !== id);
  const block = (policy.block ?? []).filter((x) => x !== id);
  if (to === 'allow') allow.push(id);
  if (to === 'block') block.push(id);
  return { allow, block };
}

function Rows(props: { kind: string; entries: Entry[]; policy: Policy; onSet: (id: string, to: 'inherit' | 'allow' | 'block') => void }) {
  return (
    <table>
      <caption>{props.kind === 'provider' ? 'Providers' : 'Capabilities'}</caption>
      <thead><tr><th scope="col">Id</th><th scope="col">Key's rule</th><th scope="col">Effective</th><th scope="col">Decided by</th></tr></thead>
      <tbody>
        {props.entries.map((e) => (
          <tr key={e.id} data-policy-row={e.id}>
            <th scope="row">{e.id}<br /><small>{e.title}{props.kind === 'provider' && e.configured === false ? ' · not configured' : ''}</small></th>
            <td>
              <label class="sr-only" for={`p-${props.kind}-${e.id}`}>Rule of this key for {e.id}</label>
              <select id={`p-${props.kind}-${e.id}`} value={own(props.policy, e.id)} onChange={(ev) => props.onSet(e.id, (ev.target as HTMLSelectElement).value as 'inherit')}>
                <option value="inherit">inherit</option>
                <option value="allow">allow</option>
                <option value="block">block</option>
              </select>
            </td>
            <td data-effective={e.allowed ? 'allowed' : 'blocked'} class={e.allowed ? 'ok' : 'error'}>{e.allowed ? 'Allowed' : 'Blocked'}{e.allowedProviders && e.providers && e.providers.length > 0 ? ` (${e.allowedProviders.length} of ${e.providers.length} providers)` : ''}</td>
            <td>{ruleText(e)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The policy page. */
export function PolicyPage(props: { query: URLSearchParams }) {
  const id = props.query.get('id');
  const keys = useGet<{ items: { id: string; name: string }[] }>('/admin/keys?limit=500');
  const report = useGet<Report>(id ? `/admin/keys/${encodeURIComponent(id)}/policy` : null);
  const [msg, setMsg] = useState({ error: '', ok: '' });
  const set = async (target: string, to: 'inherit' | 'allow' | 'block') => {
    const r = await api('PATCH', `/admin/keys/${encodeURIComponent(id!)}`, { policy: withRule(report.data!.policy, target, to) });
    setMsg(r.ok ? { error: '', ok: `${target}: ${to} saved.` } : { error: errorText(r), ok: '' });
    report.reload();
  };
  return (
    <div>
      <div class="toolbar">
        <label for="policy-key">Key</label>
        <select id="policy-key" value={id ?? ''} onChange={(e) => navigate(`/console/app/policy?id=${encodeURIComponent((e.target as HTMLSelectElement).value)}`)}>
          <option value="">Choose a key</option>
          {(keys.data?.items ?? []).map((k) => <option key={k.id} value={k.id}>{k.name} ({k.id})</option>)}
        </select>
      </div>
      <Status {...msg} />
      <Status error={report.error} />
      {id && report.data && (
        <>
          <p>Deployment default: allow {JSON.stringify(report.data.defaultPolicy.allow ?? [])}, block {JSON.stringify(report.data.defaultPolicy.block ?? [])}. The most specific rule wins: endpoint, provider, capability, then <code>*</code>; the key's rules before the deployment's.</p>
          <Rows kind="provider" entries={report.data.providers} policy={report.data.policy} onSet={set} />
          <Rows kind="capability" entries={report.data.capabilities} policy={report.data.policy} onSet={set} />
        </>
      )}
    </div>
  );
}
