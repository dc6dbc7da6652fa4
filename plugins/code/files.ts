/**
 * `saveOutputFiles` (issue 19, item 2): the files a run left in its working directory go to the
 * file store as 24-hour signed links; the answer lists `{ name, url, size }` in name order. The
 * store names each file by a random id and the extension of the name the code gave it.
 */
import type { RunContext, SandboxResult } from '../../core/sdk.js';

/** A file a run handed back. */
type SandboxFile = NonNullable<SandboxResult['files']>[number];

/** Content types by extension, for the download's header; anything else is octet-stream. */
const TYPES: Record<string, string> = {
  txt: 'text/plain; charset=utf-8', csv: 'text/csv; charset=utf-8', json: 'application/json', html: 'text/html; charset=utf-8',
  md: 'text/markdown; charset=utf-8', xml: 'application/xml', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg',
  gif: 'image/gif', svg: 'image/svg+xml', webp: 'image/webp', pdf: 'application/pdf', zip: 'application/zip',
};

/** One stored file as the answer lists it. */
export interface SavedFile {
  name: string;
  url: string;
  size: number;
}

/** Stores the run's files (24 h, the store's default retention) and lists their links. */
export async function saveFiles(ctx: RunContext<unknown>, files: SandboxFile[]): Promise<SavedFile[]> {
  const out: SavedFile[] = [];
  for (const f of files) {
    const ext = /\.([A-Za-z0-9]{1,10})$/.exec(f.name)?.[1]?.toLowerCase() ?? 'bin';
    const stored = await ctx.engines.files.put(f.data, { contentType: TYPES[ext] ?? 'application/octet-stream', extension: ext });
    out.push({ name: f.name, url: stored.url, size: stored.size });
  }
  return out;
}
