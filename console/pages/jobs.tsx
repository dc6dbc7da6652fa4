/** The Jobs page: every key's jobs for administrators, the key's own (and a submit form) for key holders; `?id=` opens one. */
import type { Me } from '../api.js';
import { JobDetail } from '../jobs/job-detail.js';
import { JobList } from '../jobs/job-list.js';
import { JobSubmit } from '../jobs/job-submit.js';

/** The Jobs page. */
export function JobsPage(props: { me: Me; query: URLSearchParams }) {
  const { me, query } = props;
  const id = query.get('id');
  if (id) return <JobDetail key={id} role={me.role} id={id} />;
  return (
    <div>
      {me.role === 'key' && <JobSubmit target={query.get('target') ?? undefined} input={query.get('input') ?? undefined} />}
      <JobList role={me.role} query={query} />
    </div>
  );
}
