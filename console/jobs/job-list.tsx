/**
 * The job list: filters (status for everyone; key and target for administrators), one row per job
 * with its progress bar, credits and times, a Cancel button while it can still change, and a
 * refresh every second while any shown job is queued or running.
 */
import { useState } from 'preact/hooks';
import { Status, num, when } from '../components/common.js';
import { JobProgress } from './job-progress.js';
import { cancelJob, isLive, listJobs, PAGE_SIZE, type Job, type JobFilters, type Role } from './jobs-api.js';
import { useAnswer, usePoll } from './use-poll.js';

const STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'];

/** A Cancel button; `onDone` gets the job's view after it (or nothing on failure, with the error shown). */
export function CancelButton(props: { role: Role; job: Job; onDone: () => void; onError: (e: string) => void }) {
  const [busy, setBusy] = useState(false);
  return (
    <button type="button" class="small" disabled={busy} aria-label={`Cancel job ${props.job.id}`} onClick={async () => {
      setBusy(true);
      const r = await cancelJob(props.role, props.job.id);
      setBusy(false);
      if (!r.ok) props.onError(r.error);
      props.onDone();
    }}>Cancel</button>
  );
}

/** The list of jobs with its filters. */
export function JobList(props: { role: Role; query: URLSearchParams }) {
  const { role, query } = props;
  const initial: JobFilters = { status: query.get('status') ?? '', keyId: query.get('keyId') ?? '', target: query.get('target') ?? '', page: 1 };
  const [form, setForm] = useState(initial);
  const [applied, setApplied] = useState(initial);
  const [actionError, setActionError] = useState('');
  const jobs = useAnswer(JSON.stringify(applied), () => listJobs(role, applied));
  const items = jobs.value ?? [];
  usePoll(items.some(isLive), jobs.reload);
  const text = (k: 'keyId' | 'target') => ({ value: form[k], onInput: (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value }) });
  const admin = role === 'admin';
  return (
    <section aria-labelledby="jobs-list-title">
      <h2 id="jobs-list-title">{admin ? 'Every key\u2019s jobs' : 'Your jobs'}</h2>
      <form class="filters" aria-label="Job filters" onSubmit={(e) => { e.preventDefault(); setApplied({ ...form, page: 1 }); }}>
        <label for="j-status">Status</label>
        <select id="j-status" value={form.status} onChange={(e) => setForm({ ...form, status: (e.target as HTMLSelectElement).value })}>
          <option value="">any</option>
          {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
        {admin && <><label for="j-key">Key id</label><input id="j-key" {...text('keyId')} /></>}
        {admin && <><label for="j-target">Target</label><input id="j-target" {...text('target')} /></>}
        <button type="submit">Apply</button>
        <button type="button" onClick={jobs.reload}>Refresh</button>
      </form>
      <Status error={jobs.error || actionError} />
      <table>
        <thead>
          <tr>
            <th scope="col">Job</th>{admin && <th scope="col">Key</th>}<th scope="col">Target</th><th scope="col">Status</th>
            <th scope="col">Progress</th><th scope="col">Credits</th><th scope="col">Created</th><th scope="col">Finished</th><th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {items.map((j) => (
            <tr key={j.id} data-job={j.id}>
              <td class="mono"><a href={`/console/app/jobs?id=${encodeURIComponent(j.id)}`}>{j.id}</a></td>
              {admin && <td class="mono">{j.keyId && <a href={`/console/app/keys?id=${encodeURIComponent(j.keyId)}`}>{j.keyId}</a>}</td>}
              <td>{j.type}: {j.target}</td>
              <td data-status>{j.status}</td>
              <td><JobProgress job={j} label={`Progress of ${j.id}`} /></td>
              <td data-credits>{num(j.creditsCharged)}</td>
              <td>{when(j.createdAt)}</td>
              <td>{j.finishedAt ? when(j.finishedAt) : '–'}</td>
              <td>{isLive(j) ? <CancelButton role={role} job={j} onDone={jobs.reload} onError={setActionError} /> : null}</td>
            </tr>
          ))}
          {jobs.value && items.length === 0 && <tr><td colSpan={admin ? 9 : 8}>No jobs match.</td></tr>}
        </tbody>
      </table>
      <div class="row">
        <button type="button" disabled={applied.page === 1} onClick={() => setApplied({ ...applied, page: applied.page - 1 })}>Previous page</button>
        <span>Page {applied.page}</span>
        <button type="button" disabled={items.length < PAGE_SIZE} onClick={() => setApplied({ ...applied, page: applied.page + 1 })}>Next page</button>
      </div>
    </section>
  );
}
