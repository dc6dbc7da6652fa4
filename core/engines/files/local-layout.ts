/**
 * How the local file store names things on disk, as pure functions over a directory listing:
 * `<id>.<ext>` holds the bytes, `<id>.meta.json` the metadata (older releases: `<id>.json`),
 * `<id>.<ext>.partial` a write in progress. Grouping by id lets the sweeper and the listing treat
 * both layouts alike.
 */

/** What the store keeps about each file. */
export interface FileMeta {
  contentType: string;
  extension: string;
  /** Unix ms; a permanent or owned file carries the far expiry of its signed link. */
  expiresAt: number;
  size: number;
  /** Unix ms; absent in files written by older releases. */
  storedAt?: number;
  /** The record the file lives as long as (a job id), when it was stored for one. */
  owner?: string;
}

/** Metadata found for an id, and the file name it was read from (either layout). */
export interface MetaFound {
  meta: FileMeta;
  name: string;
}

/** One id's entries in the directory. */
export interface NameGroup {
  /** The name its metadata would be read from: `<id>.meta.json`, else a legacy `<id>.json`; undefined when neither is there. */
  metaName?: string;
  /** Every entry of the id (metadata included). */
  names: string[];
}

/** The entries of a listing grouped by file id (the part before the first dot). */
export function groupNames(names: string[]): Map<string, NameGroup> {
  const groups = new Map<string, NameGroup>();
  for (const name of names) {
    const dot = name.indexOf('.');
    if (dot <= 0) continue;
    const id = name.slice(0, dot);
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { names: [] }));
    g.names.push(name);
  }
  for (const [id, g] of groups) {
    if (g.names.includes(`${id}.meta.json`)) g.metaName = `${id}.meta.json`;
    else if (g.names.includes(`${id}.json`)) g.metaName = `${id}.json`;
  }
  return groups;
}
