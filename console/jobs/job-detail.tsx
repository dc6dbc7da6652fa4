/**
 * One job (`?id=job_…`): status, progress, credits and times, its error, the single result
 * (`data`) rendered as the playground renders a call's, or its results page by page; refreshed
 * every second while it is queued or running, with a Cancel button.
 */
import { useState } from 'preact/hooks';
import { Status, num, when } from '../components/common.js';
import { ResultView } from '../components/result-view.js';
import { JsonTree } from '../components/json-tree.js';
import { JobProgress } from './job-progress.js';
import { CancelButton } from './job-list.js';
import { getJob, isLive, type Role } from './jobs-api.js';
import { useAnswer, usePoll } from './use-poll.js';

/** The detail view of one job. */
export function JobDetail(props: { role: Role; id: string }) {
  const { role, id } = props;
  // Cursors of the pages seen so far: going back pops one.
  const [cursors, setCursors] = useState<string[]>(['']);
  const cursor = cursors[cursors.length - 1]!;
  const [actionError, setActionError] = useState('');
  const job = useAnswer(`${id}\u0000${cursor}`, () => getJob(role, id, cursor));
  const j = job.value;
  usePoll(!!j && isLive(j), job.reload);
  return (
    <section aria-labelledby="job-title">
      <p><a href="/console/app/jobs">All jobs</a></p>
      <h2 id="job-title">Job <span class="mono">{id}</span></h2>
      <Status error={job.error || actionError} />
      {j && (
        <>
          <dl class="tiles">
            <div><dt>Status</dt><dd data-figure="job-status">{j.status}</dd></div>
            <div><dt>Target</dt><dd>{j.type}: {j.target}</dd></div>
            {j.provider && <div><dt>Provider</dt><dd>{j.provider}</dd></div>}
            {role === 'admin' && j.keyId && <div><dt>Key</dt><dd class="mono"><a href={`/console/app/keys?id=${encodeURIComponent(j.keyId)}`}>{j.keyId}</a></dd></div>}
            <div><dt>Credits charged</dt><dd data-figure="job-credits">{num(j.creditsCharged)}</dd></div>
            <div><dt>Created</dt><dd>{when(j.createdAt)}</dd></div>
            <div><dt>Started</dt><dd>{j.startedAt ? when(j.startedAt) : '–'}</dd></div>
            <div><dt>Finished</dt><dd>{j.finishedAt ? when(j.finishedAt) : '–'}</dd></div>
          </dl>
          <div class="row">
            <JobProgress job={j} label={`Progress of ${j.id}`} />
            {isLive(j) && <CancelButton role={role} job={j} onDone={job.reload} onError={setActionError} />}
          </div>
          {j.error && <p role="alert" class="error" data-job-error><strong>{j.error.code}</strong>: {j.error.message}</p>}
          {j.data !== undefined && <><h3>Result</h3><ResultView data={j.data} /></>}
          {j.results && (
            <section aria-labelledby="job-results-title">
              <h3 id="job-results-title">Results</h3>
              {j.results.items.length === 0 && <p>No results yet.</p>}
              <ol class="job-results">
                {j.results.items.map((item, i) => <li key={`${cursor}:${i}`}><div class="json"><JsonTree value={item} /></div></li>)}
              </ol>
              <div class="row">
                <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>Previous results</button>
                <button type="button" disabled={!j.results.next} onClick={() => setCursors([...cursors, j.results!.next!])}>Next results</button>
              </div>
            </section>
          )}
        </>
      )}
    </section>
  );
}
