/**
 * Local file store (design: "file store with expiring URLs"): produced files live under
 * `<dataDir>/files` with random, unguessable ids; download URLs are HMAC-signed with an expiry
 * and a sweeper deletes files whose retention has passed (spec §8.2: 24 hours for PDFs).
 *
 * Layout: the bytes are `<id>.<ext>` and the metadata `<id>.meta.json`. An extension is one
 * alphanumeric token, so no data file can have the metadata's two-dot name, whatever its type
 * (`.json` included). Older releases kept the metadata as `<id>.json`; such files are still read,
 * listed, swept and deleted (local-layout.ts tells the two apart).
 */
import { createReadStream, mkdirSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineOptions } from '../options.js';
import type { FileStore, ListedFile, OpenedFile, OwnedFile, StoredFile } from './types.js';
import { NotFoundError } from '../../errors.js';
import { createLinks, GONE, ID_RE } from './signing.js';
import { groupNames, type FileMeta, type MetaFound } from './local-layout.js';

/** Creates the disk file store and starts its sweeper (an unref'd timer, stopped by `close`). */
export function createLocalFileStore(opts: EngineOptions): FileStore & { close(): Promise<void>; sweep(): Promise<number> } {
  const dir = join(opts.dataDir, 'files');
  mkdirSync(dir, { recursive: true });
  const links = createLinks(opts);
  const path = (name: string) => join(dir, name);

  /** The metadata in file `name`: 'absent' when there is no such file, undefined when it is unreadable. */
  async function readMetaFile(name: string): Promise<FileMeta | 'absent' | undefined> {
    let text: string;
    try {
      text = await readFile(path(name), 'utf8');
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : undefined;
    }
    try {
      const m = JSON.parse(text) as FileMeta;
      return typeof m.extension === 'string' && typeof m.expiresAt === 'number' ? m : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The metadata of `id`: `<id>.meta.json`, else an older release's `<id>.json`. The new name is
   * written before the bytes, so while it exists `<id>.json` is a data file and never read as
   * metadata; a `<id>.json` without it comes from an older release.
   */
  async function findMeta(id: string): Promise<MetaFound | undefined> {
    const current = await readMetaFile(`${id}.meta.json`);
    if (current !== 'absent') return current ? { meta: current, name: `${id}.meta.json` } : undefined;
    const legacy = await readMetaFile(`${id}.json`);
    return legacy && legacy !== 'absent' ? { meta: legacy, name: `${id}.json` } : undefined;
  }

  async function remove(id: string, found: MetaFound): Promise<void> {
    await rm(path(`${id}.${found.meta.extension}`), { force: true });
    await rm(path(found.name), { force: true });
  }

  /** Deletes every expired file (and orphans left by a crash mid-write); returns how many went. */
  async function sweep(): Promise<number> {
    const now = Date.now();
    let removed = 0;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return 0;
    }
    for (const [id, group] of groupNames(names)) {
      const found = group.metaName ? await findMeta(id) : undefined;
      if (found && found.meta.expiresAt > now) continue;
      if (found) {
        await remove(id, found);
        removed++;
        continue;
      }
      // Data without metadata (an older release's write interrupted before its metadata landed,
      // a temp file, unreadable metadata): removed once it is clearly not a write in progress.
      for (const name of group.names) {
        const st = await stat(path(name)).catch(() => undefined);
        if (st && now - st.mtimeMs > 60 * 60 * 1000) await rm(path(name), { force: true });
      }
    }
    return removed;
  }

  /** Every file with readable metadata that has not expired, with its metadata. */
  async function live(): Promise<{ id: string; meta: FileMeta }[]> {
    const names = await readdir(dir).catch(() => [] as string[]);
    const now = Date.now();
    const out: { id: string; meta: FileMeta }[] = [];
    for (const [id, group] of groupNames(names)) {
      if (!group.metaName) continue;
      const found = await findMeta(id);
      if (found && found.meta.expiresAt > now) out.push({ id, meta: found.meta });
    }
    return out;
  }

  let sweeping: Promise<unknown> = sweep().catch((err) => opts.log.warn({ err }, 'file sweep failed'));
  const timer = setInterval(() => {
    sweeping = sweep().catch((err) => opts.log.warn({ err }, 'file sweep failed'));
  }, links.sweepEvery);
  timer.unref();

  return {
    sweep,
    async put(data, { contentType, extension, retentionMs, permanent, owner }) {
      const ext = links.extension(extension);
      const id = links.newId();
      const expires = links.expiresFor({ retentionMs, permanent, owner });
      const meta: FileMeta = { contentType, extension: ext, expiresAt: expires * 1000, size: data.byteLength, storedAt: Date.now(), ...(owner ? { owner } : {}) };
      // Metadata first: a crash before the bytes land leaves metadata whose open answers 404 and
      // which the sweeper removes at its expiry, never bytes that look like older metadata.
      await writeFile(path(`${id}.meta.json`), JSON.stringify(meta));
      const tmp = path(`${id}.${ext}.partial`);
      await writeFile(tmp, data);
      await rename(tmp, path(`${id}.${ext}`));
      return { id, url: links.url(id, expires), expiresAt: new Date(meta.expiresAt), size: meta.size, contentType } satisfies StoredFile;
    },
    async open(id, expires, sig): Promise<OpenedFile> {
      links.check(id, expires, sig);
      const meta = (await findMeta(id))?.meta;
      if (!meta || meta.expiresAt <= Date.now()) throw new NotFoundError(GONE);
      const file = path(`${id}.${meta.extension}`);
      const st = await stat(file).catch(() => undefined);
      if (!st) throw new NotFoundError(GONE);
      return {
        path: file,
        contentType: meta.contentType,
        size: st.size,
        expiresAt: new Date(meta.expiresAt),
        filename: `${id}.${meta.extension}`,
        stream: async (range) => createReadStream(file, range),
        bytes: () => readFile(file),
      };
    },
    async delete(id) {
      if (!ID_RE.test(id)) return false;
      const found = await findMeta(id);
      if (!found) return false;
      await remove(id, found);
      return true;
    },
    async list() {
      const out: ListedFile[] = (await live()).map(({ id, meta }) => ({ id, contentType: meta.contentType, size: meta.size, expiresAt: new Date(meta.expiresAt) }));
      return out.sort((a, b) => b.expiresAt.getTime() - a.expiresAt.getTime());
    },
    async owned() {
      const out: OwnedFile[] = [];
      for (const { id, meta } of await live()) if (meta.owner) out.push({ id, owner: meta.owner });
      return out;
    },
    async close() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
