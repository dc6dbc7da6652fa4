/**
 * Where a job's input is kept (issue 25): inline in its row, or, above JOB_INPUT_INLINE_BYTES of
 * JSON (a large base64 file, say), in the file store, the row holding a reference to it. The
 * file store is the one every instance shares (DATA_DIR or the S3 bucket), so any instance can
 * run the job.
 *
 * The file is stored *owned by the job* and only after the job's row exists: no retention (nor
 * FILES_MAX_RETENTION_MS) ends it while the job may still run; the job's purge deletes it; and
 * the orphan sweep (`orphanInputs`) deletes one whose job row is gone by another path, which it
 * can tell safely because a file never exists before its job.
 */
import type { FileStore } from '../engines/files/types.js';
import { NotFoundError, OperationFailedError } from '../errors.js';

/** The field of a stored input that names its file. */
const INPUT_FILE = '$jobInputFile';

/** What a row holds between its insert and its input file being stored (never run: the job is not queued yet). */
export const INPUT_PENDING = { [INPUT_FILE]: null };

/** The input's JSON text when it is too large for the job's row; undefined when it stays inline. */
export function largeInput(input: unknown, maxInlineBytes: number): string | undefined {
  const text = JSON.stringify(input ?? null);
  return Buffer.byteLength(text) > maxInlineBytes ? text : undefined;
}

/** Stores a large input as `jobId`'s file (its true type, `.json`); answers what the row holds instead. */
export async function keepInput(files: FileStore, jobId: string, text: string): Promise<unknown> {
  // The service's own signed link with the far expiry of an owned file, which `jobInput` opens below.
  const file = await files.put(Buffer.from(text), { contentType: 'application/json', extension: 'json', owner: jobId });
  return { [INPUT_FILE]: file.url };
}

/** The input a job runs with: its row's value, or the file that value refers to. */
export async function jobInput(files: FileStore, stored: unknown): Promise<unknown> {
  // A reference is an object with that one field, which no capability's input has.
  if (!stored || typeof stored !== 'object' || Array.isArray(stored) || !(INPUT_FILE in stored) || Object.keys(stored).length !== 1) return stored;
  const ref = (stored as Record<string, unknown>)[INPUT_FILE];
  try {
    // A row still holding INPUT_PENDING (its submit died before the file was stored) has no input to run with.
    if (typeof ref !== 'string') throw new NotFoundError('The job\'s input was never stored.');
    const link = new URL(ref);
    const id = link.pathname.split('/').pop() ?? '';
    const file = await files.open(id, link.searchParams.get('expires') ?? undefined, link.searchParams.get('sig') ?? undefined);
    return JSON.parse((await file.bytes()).toString('utf8'));
  } catch (err) {
    // Only an operator's deletion (or a lost disk) removes it before its job: say so, rather
    // than the download route's "link expired", and run nothing with a wrong input.
    if (err instanceof NotFoundError) throw new OperationFailedError('The job\'s input file is no longer stored (it was deleted before the job could use it). Submit the job again.', { cause: err });
    throw err;
  }
}

/**
 * Deletes the input files of jobs that no longer exist (a job row deleted without its file, a
 * crash between the two); answers how many went. `exists` says which of the owners are still jobs.
 */
export async function orphanInputs(files: FileStore, exists: (jobIds: string[]) => Promise<Set<string>>): Promise<number> {
  const owned = (await files.owned()).filter((f) => f.owner.startsWith('job_'));
  if (owned.length === 0) return 0;
  const live = await exists([...new Set(owned.map((f) => f.owner))]);
  let removed = 0;
  for (const f of owned) if (!live.has(f.owner) && (await files.delete(f.id))) removed++;
  return removed;
}
