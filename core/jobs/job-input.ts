/**
 * Where a job's input is kept (issue 25): inline in its row, or, above JOB_INPUT_INLINE_BYTES of
 * JSON (a large base64 file, say), in the file store, the row holding a reference to it. The
 * file store is the one every instance shares (DATA_DIR or the S3 bucket), so any instance can
 * run the job; the file is deleted with the job when retention purges it.
 */
import type { FileStore } from '../engines/files/types.js';

/** The field of a stored input that names its file. */
const INPUT_FILE = '$jobInputFile';

/** The input to store in the job's row: `input` itself, or a reference to its file when it is large. */
export async function storedInput(files: FileStore, input: unknown, maxInlineBytes: number): Promise<unknown> {
  const text = JSON.stringify(input ?? null);
  if (Buffer.byteLength(text) <= maxInlineBytes) return input;
  // Kept until the job is purged (a job may wait and run for longer than a file's default day);
  // a permanent file gets the service's own signed link, which `jobInput` opens below.
  // Not `.json`: the local store keeps each file's metadata beside it as `<id>.json`.
  const file = await files.put(Buffer.from(text), { contentType: 'application/json', extension: 'txt', permanent: true });
  return { [INPUT_FILE]: file.url };
}

/** The input a job runs with: its row's value, or the file that value refers to. */
export async function jobInput(files: FileStore, stored: unknown): Promise<unknown> {
  const ref = stored && typeof stored === 'object' && !Array.isArray(stored) ? (stored as Record<string, unknown>)[INPUT_FILE] : undefined;
  if (typeof ref !== 'string') return stored;
  const link = new URL(ref);
  const id = link.pathname.split('/').pop() ?? '';
  const file = await files.open(id, link.searchParams.get('expires') ?? undefined, link.searchParams.get('sig') ?? undefined);
  return JSON.parse((await file.bytes()).toString('utf8'));
}
