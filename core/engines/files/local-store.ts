/**
 * Local file store (design: "file store with expiring URLs"): produced files live under
 * `<dataDir>/files` with random, unguessable ids; download URLs are HMAC-signed with an expiry
 * and a sweeper deletes files whose retention has passed (spec §8.2: 24 hours for PDFs).
 */
import { createReadStream, mkdirSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineOptions } from '../options.js';
import type { FileStore, ListedFile, OpenedFile, StoredFile } from './types.js';
import { NotFoundError } from '../../errors.js';
import { createLinks, GONE, ID_RE } from './signing.js';

interface Meta {
  contentType: string;
  extension: string;
  expiresAt: number;
  size: number;
}

/** Creates the disk file store and starts its sweeper (an unref'd timer, stopped by `close`). */
export function createLocalFileStore(opts: EngineOptions): FileStore & { close(): Promise<void>; sweep(): Promise<number> } {
  const dir = join(opts.dataDir, 'files');
  mkdirSync(dir, { recursive: true });
  const links = createLinks(opts);
  const dataPath = (id: string, ext: string) => join(dir, `${id}.${ext}`);
  const metaPath = (id: string) => join(dir, `${id}.json`);

  async function readMeta(id: string): Promise<Meta | undefined> {
    try {
      return JSON.parse(await readFile(metaPath(id), 'utf8')) as Meta;
    } catch {
      return undefined;
    }
  }

  async function remove(id: string, meta?: Meta): Promise<void> {
    await rm(metaPath(id), { force: true });
    if (meta) await rm(dataPath(id, meta.extension), { force: true });
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
    const ids = new Set(names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)));
    for (const id of ids) {
      const meta = await readMeta(id);
      if (meta && meta.expiresAt > now) continue;
      await remove(id, meta);
      removed++;
    }
    for (const name of names) {
      const id = name.split('.')[0]!;
      if (name.endsWith('.json') || ids.has(id)) continue;
      // Data without metadata: a write interrupted before its metadata landed, or a temp file.
      const st = await stat(join(dir, name)).catch(() => undefined);
      if (st && now - st.mtimeMs > 60 * 60 * 1000) await rm(join(dir, name), { force: true });
    }
    return removed;
  }

  let sweeping: Promise<unknown> = sweep().catch((err) => opts.log.warn({ err }, 'file sweep failed'));
  const timer = setInterval(() => {
    sweeping = sweep().catch((err) => opts.log.warn({ err }, 'file sweep failed'));
  }, links.sweepEvery);
  timer.unref();

  return {
    sweep,
    async put(data, { contentType, extension, retentionMs, permanent }) {
      const ext = links.extension(extension);
      const id = links.newId();
      const expires = links.expiresFor({ retentionMs, permanent });
      const meta: Meta = { contentType, extension: ext, expiresAt: expires * 1000, size: data.byteLength };
      const tmp = join(dir, `${id}.tmp`);
      await writeFile(tmp, data);
      await rename(tmp, dataPath(id, ext));
      await writeFile(metaPath(id), JSON.stringify(meta));
      return { id, url: links.url(id, expires), expiresAt: new Date(meta.expiresAt), size: meta.size, contentType } satisfies StoredFile;
    },
    async open(id, expires, sig): Promise<OpenedFile> {
      links.check(id, expires, sig);
      const meta = await readMeta(id);
      if (!meta || meta.expiresAt <= Date.now()) throw new NotFoundError(GONE);
      const path = dataPath(id, meta.extension);
      const st = await stat(path).catch(() => undefined);
      if (!st) throw new NotFoundError(GONE);
      return {
        path,
        contentType: meta.contentType,
        size: st.size,
        expiresAt: new Date(meta.expiresAt),
        filename: `${id}.${meta.extension}`,
        stream: async (range) => createReadStream(path, range),
        bytes: () => readFile(path),
      };
    },
    async delete(id) {
      if (!ID_RE.test(id)) return false;
      const meta = await readMeta(id);
      if (!meta) return false;
      await remove(id, meta);
      return true;
    },
    async list() {
      const names = await readdir(dir).catch(() => [] as string[]);
      const now = Date.now();
      const out: ListedFile[] = [];
      for (const name of names) {
        if (!name.endsWith('.json')) continue;
        const id = name.slice(0, -5);
        const meta = await readMeta(id);
        if (meta && meta.expiresAt > now) out.push({ id, contentType: meta.contentType, size: meta.size, expiresAt: new Date(meta.expiresAt) });
      }
      return out.sort((a, b) => b.expiresAt.getTime() - a.expiresAt.getTime());
    },
    async close() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
