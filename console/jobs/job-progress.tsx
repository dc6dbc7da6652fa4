/** A job's progress: a `<progress>` bar (indeterminate while the total is unknown) and its counts in words. */
import { num } from '../components/common.js';
import type { Job } from './jobs-api.js';

/** The bar and "done / total, failed" text; `label` names the bar for screen readers. */
export function JobProgress(props: { job: Pick<Job, 'progress' | 'status'>; label: string }) {
  const { done, failed, total } = props.job.progress;
  const finished = done + failed;
  // Without a total (a crawl still finding pages) the bar has no value: browsers show it indeterminate.
  const value = total === null ? undefined : Math.min(finished, total);
  return (
    <span class="job-progress">
      {total === null ? <progress aria-label={props.label} /> : <progress aria-label={props.label} max={Math.max(total, 1)} value={value} />}
      <span data-figure="progress">{num(done)} done{failed ? `, ${num(failed)} failed` : ''} of {total === null ? '?' : num(total)}</span>
    </span>
  );
}
