/**
 * Submitting a job (key holders): a capability or endpoint from discovery, its input as JSON, and
 * an optional webhook URL; on 202 the page opens the new job.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { Status } from '../components/common.js';
import { navigate } from '../router.js';
import { submitJob } from './jobs-api.js';

/** Parses the input box: a JSON object, or an error text. */
export function parseInput(text: string): { input?: Record<string, unknown>; error?: string } {
  try {
    const v = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) return { input: v };
  } catch {
    // Falls through to the message below.
  }
  return { error: 'The input must be a JSON object.' };
}

// "capability:scrape_page" reads as "scrape_page (capability)"; a text unlike the value also keeps
// the value an attribute (Preact skips setting a value the option already reports from its text).
const label = (t: string) => `${t.slice(t.indexOf(':') + 1)} (${t.slice(0, t.indexOf(':'))})`;

/** The submit form; `target` and `input` may come from the playground. */
export function JobSubmit(props: { target?: string; input?: string }) {
  const [targets, setTargets] = useState<string[]>([]);
  const [target, setTarget] = useState(props.target ?? '');
  const [input, setInput] = useState(props.input ?? '{}');
  const [webhook, setWebhook] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    void Promise.all([api('POST', '/api/v2/search', { type: 'capability', limit: 100 }), api('POST', '/api/v2/search', { type: 'endpoint', limit: 100 })]).then(([caps, eps]) => {
      if (!caps.ok) return setError(errorText(caps));
      const ids = (r: typeof caps, kind: string) => (r.ok ? r.json.data.items : []).map((i: { id: string }) => `${kind}:${i.id}`);
      setTargets([...ids(caps, 'capability'), ...ids(eps, 'endpoint')]);
    });
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const parsed = parseInput(input);
    if (parsed.error) return setError(parsed.error);
    const [type, ...rest] = target.split(':');
    if ((type !== 'capability' && type !== 'endpoint') || rest.length === 0) return setError('Choose a capability or an endpoint.');
    setBusy(true);
    const r = await submitJob({ type, id: rest.join(':'), input: parsed.input!, webhookUrl: webhook.trim() || undefined });
    setBusy(false);
    if (!r.ok) return setError(r.error);
    setError('');
    navigate(`/console/app/jobs?id=${encodeURIComponent(r.value.id)}`);
  };
  return (
    <section aria-labelledby="job-submit-title">
      <h2 id="job-submit-title">Submit a job</h2>
      <form class="grid" aria-label="Submit a job" onSubmit={submit}>
        <label for="js-target">Capability or endpoint</label>
        <select id="js-target" value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
          <option value="">Choose…</option>
          {target && !targets.includes(target) && <option value={target}>{label(target)}</option>}
          {targets.map((t) => <option key={t} value={t}>{label(t)}</option>)}
        </select>
        <label for="js-input">Input as JSON</label>
        <textarea id="js-input" rows={6} class="mono" value={input} onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)} />
        <label for="js-webhook">Webhook URL (optional)</label>
        <input id="js-webhook" type="url" value={webhook} onInput={(e) => setWebhook((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={busy}>{busy ? 'Submitting…' : 'Submit job'}</button>
      </form>
      <Status error={error} />
    </section>
  );
}
