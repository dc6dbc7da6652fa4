/** Keys: search, create (secret shown once), and one key's settings, credits, rotation and ledger. */
import { useState } from 'preact/hooks';
import { api, errorText, qs } from '../api.js';
import { num, Status, useGet, when } from '../components/common.js';
import { SecretOnce } from '../components/secret-once.js';

interface KeyView { id: string; name: string; prefix: string; active: boolean; credits: number; reserved: number; budget: number | null; spent: number; rateLimitPerMinute: number; createdAt: string }

const intOrNull = (s: string) => (s.trim() === '' ? null : Number(s));

function CreateKey(props: { onCreated: () => void }) {
  const [form, setForm] = useState({ name: '', credits: '0', rate: '', budget: '' });
  const [secret, setSecret] = useState('');
  const [msg, setMsg] = useState({ error: '', ok: '' });
  const submit = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = { name: form.name, credits: Number(form.credits || 0) };
    if (form.rate.trim()) body.rateLimitPerMinute = Number(form.rate);
    if (form.budget.trim()) body.budget = Number(form.budget);
    const r = await api('POST', '/admin/keys', body);
    if (!r.ok) return setMsg({ error: errorText(r), ok: '' });
    setSecret(r.json.key);
    setMsg({ error: '', ok: `Key ${r.json.id} created.` });
    setForm({ name: '', credits: '0', rate: '', budget: '' });
    props.onCreated();
  };
  const field = (k: keyof typeof form) => ({ value: form[k], onInput: (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value }) });
  return (
    <section aria-labelledby="create-title">
      <h2 id="create-title">Create a key</h2>
      {secret ? (
        <SecretOnce secret={secret} title="New key" onDone={() => setSecret('')} />
      ) : (
        <form class="grid" onSubmit={submit}>
          <label for="k-name">Name</label>
          <input id="k-name" required maxLength={200} {...field('name')} />
          <label for="k-credits">Credits</label>
          <input id="k-credits" type="number" min={0} step={1} {...field('credits')} />
          <label for="k-rate">Rate limit per minute</label>
          <input id="k-rate" type="number" min={1} step={1} placeholder="deployment default" {...field('rate')} />
          <label for="k-budget">Monthly budget (credits)</label>
          <input id="k-budget" type="number" min={0} step={1} placeholder="none" {...field('budget')} />
          <button type="submit">Create key</button>
        </form>
      )}
      <Status {...msg} />
    </section>
  );
}

function KeyDetail(props: { id: string }) {
  const key = useGet<KeyView>(`/admin/keys/${encodeURIComponent(props.id)}`);
  const ledger = useGet<{ items: { kind: string; amount: number; balanceAfter: number; reason: string | null; target: string | null; createdAt: string }[] }>(`/admin/keys/${encodeURIComponent(props.id)}/transactions?limit=50`);
  const [edit, setEdit] = useState<{ name: string; rate: string; budget: string } | null>(null);
  const [credit, setCredit] = useState({ amount: '', reason: '' });
  const [secret, setSecret] = useState('');
  const [msg, setMsg] = useState({ error: '', ok: '' });
  const [confirming, setConfirming] = useState(false);
  const k = key.data;
  if (key.error) return <Status error={key.error} />;
  if (!k) return <p>Loading…</p>;
  const form = edit ?? { name: k.name, rate: String(k.rateLimitPerMinute), budget: k.budget === null ? '' : String(k.budget) };
  const done = (r: Awaited<ReturnType<typeof api>>, ok: string) => {
    if (!r.ok) return setMsg({ error: errorText(r), ok: '' });
    setMsg({ error: '', ok });
    setEdit(null);
    key.reload();
    ledger.reload();
  };
  const save = async (e: Event) => {
    e.preventDefault();
    done(await api('PATCH', `/admin/keys/${encodeURIComponent(k.id)}`, { name: form.name, rateLimitPerMinute: Number(form.rate), budget: intOrNull(form.budget) }), 'Saved.');
  };
  const adjust = async (sign: 1 | -1) => {
    const amount = Math.abs(Number(credit.amount)) * sign;
    const r = await api('POST', `/admin/keys/${encodeURIComponent(k.id)}/credits`, { amount, reason: credit.reason });
    if (r.ok) setCredit({ amount: '', reason: '' });
    done(r, sign > 0 ? `Added ${Math.abs(amount)} credits.` : `Deducted ${Math.abs(amount)} credits.`);
  };
  const rotate = async () => {
    setConfirming(false);
    const r = await api('POST', `/admin/keys/${encodeURIComponent(k.id)}/rotate`);
    if (r.ok) setSecret(r.json.key);
    done(r, 'Rotated: the old secret is refused from now on.');
  };
  const toggle = async () => done(await api('PATCH', `/admin/keys/${encodeURIComponent(k.id)}`, { active: !k.active }), k.active ? 'Deactivated.' : 'Activated.');
  return (
    <section aria-labelledby="key-title" class="detail">
      <h2 id="key-title">Key {k.name}</h2>
      <dl class="tiles">
        <div><dt>Id</dt><dd class="mono">{k.id}</dd></div>
        <div><dt>Prefix</dt><dd class="mono">{k.prefix}…</dd></div>
        <div><dt>Status</dt><dd>{k.active ? 'Active' : 'Inactive'}</dd></div>
        <div><dt>Credits</dt><dd data-figure="key-credits">{num(k.credits)}</dd></div>
        <div><dt>Spent this month</dt><dd>{num(k.spent)}{k.budget !== null ? ` of ${num(k.budget)}` : ''}</dd></div>
      </dl>
      <p><a href={`/console/app/policy?id=${encodeURIComponent(k.id)}`}>Policy of this key</a> · <a href={`/console/app/usage?keyId=${encodeURIComponent(k.id)}`}>Usage of this key</a></p>
      {secret && <SecretOnce secret={secret} title="Rotated key" onDone={() => setSecret('')} />}
      <Status {...msg} />
      <form class="grid" onSubmit={save} aria-label="Key settings">
        <label for="e-name">Name</label>
        <input id="e-name" required maxLength={200} value={form.name} onInput={(e) => setEdit({ ...form, name: (e.target as HTMLInputElement).value })} />
        <label for="e-rate">Rate limit per minute</label>
        <input id="e-rate" type="number" min={1} step={1} required value={form.rate} onInput={(e) => setEdit({ ...form, rate: (e.target as HTMLInputElement).value })} />
        <label for="e-budget">Monthly budget (empty: none)</label>
        <input id="e-budget" type="number" min={0} step={1} value={form.budget} onInput={(e) => setEdit({ ...form, budget: (e.target as HTMLInputElement).value })} />
        <button type="submit">Save</button>
      </form>
      <form class="grid" onSubmit={(e) => { e.preventDefault(); void adjust(1); }} aria-label="Credits">
        <label for="c-amount">Credits</label>
        <input id="c-amount" type="number" min={1} step={1} required value={credit.amount} onInput={(e) => setCredit({ ...credit, amount: (e.target as HTMLInputElement).value })} />
        <label for="c-reason">Reason</label>
        <input id="c-reason" required maxLength={500} value={credit.reason} onInput={(e) => setCredit({ ...credit, reason: (e.target as HTMLInputElement).value })} />
        <div class="row">
          <button type="submit">Top up</button>
          <button type="button" onClick={(e) => { const f = (e.target as HTMLElement).closest('form')!; if (f.reportValidity()) void adjust(-1); }}>Deduct</button>
        </div>
      </form>
      <div class="row">
        <button type="button" onClick={toggle}>{k.active ? 'Deactivate' : 'Activate'}</button>
        {confirming ? (
          <>
            <span>The current secret stops working at once.</span>
            <button type="button" onClick={rotate}>Confirm rotation</button>
            <button type="button" onClick={() => setConfirming(false)}>Cancel</button>
          </>
        ) : (
          <button type="button" onClick={() => setConfirming(true)}>Rotate secret</button>
        )}
      </div>
      <h3>Ledger</h3>
      <table>
        <thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Amount</th><th scope="col">Balance after</th><th scope="col">Reason or target</th></tr></thead>
        <tbody>
          {(ledger.data?.items ?? []).map((t, i) => (
            <tr key={i}><td>{when(t.createdAt)}</td><td>{t.kind}</td><td>{num(t.amount)}</td><td>{num(t.balanceAfter)}</td><td>{t.reason ?? t.target ?? ''}</td></tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The keys page: a key's detail when `?id=` names one, else the list. */
export function Keys(props: { query: URLSearchParams }) {
  const id = props.query.get('id');
  const [search, setSearch] = useState('');
  const [applied, setApplied] = useState('');
  const list = useGet<{ items: KeyView[] }>(`/admin/keys${qs({ search: applied, limit: 100 })}`);
  if (id) return (<><p><a href="/console/app/keys">← All keys</a></p><KeyDetail id={id} /></>);
  return (
    <div>
      <CreateKey onCreated={list.reload} />
      <h2>Keys</h2>
      <form role="search" class="toolbar" onSubmit={(e) => { e.preventDefault(); setApplied(search); }}>
        <label for="k-search">Search by name, id or prefix</label>
        <input id="k-search" type="search" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
        <button type="submit">Search</button>
      </form>
      <Status error={list.error} />
      <table>
        <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Status</th><th scope="col">Credits</th><th scope="col">Rate / min</th><th scope="col">Created</th></tr></thead>
        <tbody>
          {(list.data?.items ?? []).map((k) => (
            <tr key={k.id}>
              <td><a href={`/console/app/keys?id=${encodeURIComponent(k.id)}`}>{k.name}</a></td>
              <td class="mono">{k.id}</td>
              <td>{k.active ? 'Active' : 'Inactive'}</td>
              <td>{num(k.credits)}</td>
              <td>{num(k.rateLimitPerMinute)}</td>
              <td>{when(k.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
