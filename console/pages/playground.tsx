/**
 * Playground: pick a capability or endpoint from discovery (or a v1-only job from the v1
 * reference), fill a form generated from its input schema (or raw JSON), see the equivalent
 * curl, run it, and see the status, the credits charged and the result rendered.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, errorText, type ApiResponse } from '../api.js';
import { initialValue, SchemaForm } from '../components/schema-form.js';
import { ResultView } from '../components/result-view.js';
import { Status, num, useGet } from '../components/common.js';
import { BalanceTiles } from './key-home.js';
import { submitJob } from '../jobs/jobs-api.js';
import { navigate } from '../router.js';

interface Target { kind: 'capability' | 'endpoint' | 'v1'; id: string; label: string; method?: string; path?: string; schema?: any }
interface Outcome { status: number; credits: number | null; data: unknown; error?: string; requestId?: string | null }

/** Inlines `#/components/schemas/*` references of the OpenAPI document. */
function deref(doc: any, s: any, depth = 0): any {
  if (!s || typeof s !== 'object' || depth > 12) return s;
  if (typeof s.$ref === 'string') {
    const name = s.$ref.split('/').pop();
    return deref(doc, doc.components?.schemas?.[name], depth + 1);
  }
  if (Array.isArray(s)) return s.map((x) => deref(doc, x, depth + 1));
  const out: any = {};
  for (const [k, v] of Object.entries(s)) out[k] = deref(doc, v, depth + 1);
  return out;
}

/** The v1 routes whose jobs v2 discovery does not list (v1-only), from /openapi/v1.json. */
async function v1Targets(): Promise<Target[]> {
  const res = await fetch('/openapi/v1.json');
  if (!res.ok) return [];
  const doc = await res.json();
  const out: Target[] = [];
  for (const [path, ops] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(ops)) {
      let schema = op.requestBody?.content?.['application/json']?.schema;
      if (schema) schema = deref(doc, schema);
      else if (Array.isArray(op.parameters)) {
        const props: Record<string, unknown> = {};
        const required: string[] = [];
        for (const p of op.parameters.filter((x: any) => x.in === 'query')) {
          props[p.name] = { ...deref(doc, p.schema), description: p.description };
          if (p.required) required.push(p.name);
        }
        schema = { type: 'object', properties: props, required };
      }
      out.push({ kind: 'v1', id: `${method.toUpperCase()} ${path}`, label: `${method.toUpperCase()} ${path}${op.summary ? ` — ${op.summary}` : ''}`, method: method.toUpperCase(), path, schema });
    }
  }
  return out;
}

/** A cost rule as discovery describes it, in words. */
function costText(c: any): string {
  if (typeof c === 'string') return c;
  if (!c || typeof c !== 'object') return '';
  if (typeof c.note === 'string') return c.note;
  if (c.kind === 'flat') return `${c.credits} credits`;
  return JSON.stringify(c);
}

function curlOf(t: Target, input: unknown): string {
  const origin = location.origin;
  const auth = `-H 'Authorization: Bearer $API_KEY'`;
  const json = (v: unknown) => `'${JSON.stringify(v).replace(/'/g, `'\\''`)}'`;
  if (t.kind === 'v1') {
    if (t.method === 'GET') {
      const q = new URLSearchParams(Object.entries(input as Record<string, unknown>).map(([k, v]) => [k, String(v)])).toString();
      return `curl ${auth} '${origin}/api/v1${t.path}${q ? `?${q}` : ''}'`;
    }
    return `curl -X ${t.method} ${auth} -H 'Content-Type: application/json' \\\n  '${origin}/api/v1${t.path}' -d ${json(input)}`;
  }
  return `curl -X POST ${auth} -H 'Content-Type: application/json' \\\n  '${origin}/api/v2/run' -d ${json({ type: t.kind, id: t.id, input })}`;
}

/** The playground page. */
export function Playground(props: { query: URLSearchParams }) {
  const [targets, setTargets] = useState<Target[]>([]);
  const [choice, setChoice] = useState(props.query.get('target') ?? '');
  const [schema, setSchema] = useState<any>(null);
  const [cost, setCost] = useState('');
  const [input, setInput] = useState<Record<string, unknown>>({});
  const [raw, setRaw] = useState<string | null>(null);
  const [rawError, setRawError] = useState('');
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [listError, setListError] = useState('');
  const balance = useGet<{ data: any }>('/api/v2/balance');

  useEffect(() => {
    void (async () => {
      const [caps, eps, v1] = await Promise.all([
        api('POST', '/api/v2/search', { type: 'capability', limit: 100 }),
        api('POST', '/api/v2/search', { type: 'endpoint', limit: 100 }),
        v1Targets(),
      ]);
      if (!caps.ok) setListError(errorText(caps));
      const list = (r: ApiResponse, kind: 'capability' | 'endpoint'): Target[] => (r.ok ? r.json.data.items : []).map((i: any) => ({ kind, id: i.id, label: `${i.id}${i.title ? ` — ${i.title}` : ''}` }));
      setTargets([...list(caps, 'capability'), ...list(eps, 'endpoint'), ...v1]);
    })();
  }, []);

  const target = useMemo(() => targets.find((t) => `${t.kind}:${t.id}` === choice), [targets, choice]);
  useEffect(() => {
    setOutcome(null);
    setRaw(null);
    if (!target) return setSchema(null);
    if (target.kind === 'v1') {
      setSchema(target.schema ?? { type: 'object', properties: {} });
      setInput(initialValue(target.schema ?? {}) ?? {});
      setCost('');
      return;
    }
    void api('POST', '/api/v2/details', { type: target.kind, id: target.id }).then((r) => {
      if (!r.ok) return setListError(errorText(r));
      setSchema(r.json.data.input);
      setCost(costText(r.json.data.cost));
      setInput(initialValue(r.json.data.input) ?? {});
    });
  }, [target]);

  const run = async (e: Event) => {
    e.preventDefault();
    if (!target || rawError) return;
    setRunning(true);
    const before = balance.data?.data.credits as number | undefined;
    let r: ApiResponse;
    if (target.kind === 'v1') {
      if (target.method === 'GET') {
        const q = new URLSearchParams(Object.entries(input).map(([k, v]) => [k, String(v)])).toString();
        r = await api('GET', `/api/v1${target.path}${q ? `?${q}` : ''}`);
      } else r = await api(target.method!, `/api/v1${target.path}`, input);
    } else r = await api('POST', '/api/v2/run', { type: target.kind, id: target.id, input });
    const after = await api('GET', '/api/v2/balance');
    balance.reload();
    const charged = target.kind === 'v1' ? (after.ok && before !== undefined ? before - after.json.data.credits : null) : (r.json?.meta?.credits ?? (r.ok ? null : 0));
    setOutcome({
      status: r.status,
      credits: charged,
      data: target.kind === 'v1' ? r.json ?? r.text : r.json?.data,
      error: r.ok ? undefined : errorText(r),
      requestId: r.headers.get('x-request-id'),
    });
    setRunning(false);
  };

  // The same target and input submitted as a job; the Jobs page then follows it.
  const runAsJob = async () => {
    if (!target || target.kind === 'v1' || rawError) return;
    setRunning(true);
    const r = await submitJob({ type: target.kind, id: target.id, input });
    setRunning(false);
    if (!r.ok) return setListError(r.error);
    navigate(`/console/app/jobs?id=${encodeURIComponent(r.value.id)}`);
  };

  const groups: [string, Target[]][] = [
    ['Capabilities (v2)', targets.filter((t) => t.kind === 'capability')],
    ['Provider endpoints (v2)', targets.filter((t) => t.kind === 'endpoint')],
    ['v1 routes', targets.filter((t) => t.kind === 'v1')],
  ];
  return (
    <div>
      <BalanceTiles balance={balance.data?.data} />
      <Status error={listError} />
      <div class="toolbar">
        <label for="pg-target">Capability, endpoint or v1 route</label>
        <select id="pg-target" value={choice} onChange={(e) => setChoice((e.target as HTMLSelectElement).value)}>
          <option value="">Choose…</option>
          {groups.map(([label, list]) => (
            <optgroup key={label} label={label}>
              {list.map((t) => <option key={`${t.kind}:${t.id}`} value={`${t.kind}:${t.id}`}>{t.label}</option>)}
            </optgroup>
          ))}
        </select>
      </div>
      {target && schema && (
        <form onSubmit={run} aria-label="Input">
          {cost && <p>Cost: {cost}</p>}
          <div class="row">
            <button type="button" class="small" onClick={() => { setRaw(raw === null ? JSON.stringify(input, null, 2) : null); setRawError(''); }}>
              {raw === null ? 'Edit as raw JSON' : 'Back to the form'}
            </button>
          </div>
          {raw === null ? (
            <SchemaForm schema={schema} value={input} onChange={setInput} />
          ) : (
            <div class="field">
              <label for="pg-raw">Input as JSON</label>
              <textarea id="pg-raw" rows={12} class="mono" value={raw} onInput={(e) => {
                const text = (e.target as HTMLTextAreaElement).value;
                setRaw(text);
                try {
                  const v = JSON.parse(text);
                  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
                  setInput(v);
                  setRawError('');
                } catch {
                  setRawError('The input must be a JSON object.');
                }
              }} />
              <Status error={rawError} />
            </div>
          )}
          <h2>Equivalent curl</h2>
          <pre class="curl" tabIndex={0} aria-label="Equivalent curl command">{curlOf(target, input)}</pre>
          <div class="row">
            <button type="submit" disabled={running}>{running ? 'Running…' : 'Run'}</button>
            {target.kind !== 'v1' && <button type="button" disabled={running} onClick={runAsJob}>Run as a job</button>}
          </div>
        </form>
      )}
      {outcome && (
        <section aria-labelledby="outcome-title" class="outcome">
          <h2 id="outcome-title">Result</h2>
          <dl class="tiles">
            <div><dt>Status</dt><dd data-figure="status">{outcome.status}</dd></div>
            <div><dt>Credits charged</dt><dd data-figure="charged">{outcome.credits === null ? '–' : num(outcome.credits)}</dd></div>
            <div><dt>Request id</dt><dd class="mono">{outcome.requestId ?? '–'}</dd></div>
          </dl>
          {outcome.error && <p role="alert" class="error">{outcome.error}</p>}
          {outcome.data !== undefined && !outcome.error && <ResultView data={outcome.data} />}
        </section>
      )}
    </div>
  );
}
