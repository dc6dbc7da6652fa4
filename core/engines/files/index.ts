/**
 * Local file store (design: "file store with expiring URLs"): produced files live under
 * `<dataDir>/files` with random, unguessable ids; download URLs are HMAC-signed with an expiry
 * and a sweeper deletes files whose retention has passed (spec §8.2: 24 hours for PDFs).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineOptions } from '../options.js';
import { PERMANENT_EXPIRES, type FileStore, type ListedFile, type OpenedFile, type StoredFile } from './types.js';
import { InputError, NotFoundError } from '../../errors.js';

/** Default retention of produced files (spec §8.2: converted and merged PDFs, 24 hours). */
export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;

const ID_RE = /^[A-Za-z0-9_-]{32}$/;
const EXT_RE = /^[a-z0-9]{1,10}$/;
const GONE = 'File not found or the download link has expired.';

interface Meta {
  contentType: string;
  extension: string;
  expiresAt: number;
  size: number;
}

/** Reads the signing secret: `FILES_SIGNING_SECRET`, else one generated once and kept in dataDir. */
function loadSecret(opts: EngineOptions): Buffer {
  const fromEnv = opts.env.FILES_SIGNING_SECRET?.trim();
  if (fromEnv) return Buffer.from(fromEnv, 'utf8');
  const file = join(opts.dataDir, 'files-signing-secret');
  try {
    // `wx` so two instances sharing a data dir agree on one secret.
    writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8');
}

/** The HMAC of one id/expiry pair, hex encoded. */
function sign(secret: Buffer, id: string, expires: number): string {
  return createHmac('sha256', secret).update(`${id}.${expires}`).digest('hex');
}

/** Creates the file store and starts its sweeper (an unref'd timer, stopped by `close`). */
export function createFileStore(opts: EngineOptions): FileStore & { close(): Promise<void>; sweep(): Promise<number> } {
  const dir = join(opts.dataDir, 'files');
  mkdirSync(dir, { recursive: true });
  const secret = loadSecret(opts);
  const maxRetention = Number(opts.env.FILES_MAX_RETENTION_MS) > 0 ? Number(opts.env.FILES_MAX_RETENTION_MS) : Infinity;
  const sweepEvery = Number(opts.env.FILES_SWEEP_INTERVAL_MS) > 0 ? Number(opts.env.FILES_SWEEP_INTERVAL_MS) : 10 * 60 * 1000;
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
  }, sweepEvery);
  timer.unref();

  return {
    sweep,
    async put(data, { contentType, extension, retentionMs, permanent }) {
      const ext = extension.replace(/^\./, '').toLowerCase();
      if (!EXT_RE.test(ext)) throw new InputError(`Unsupported file extension '${extension}'.`);
      const id = randomBytes(24).toString('base64url');
      const retention = permanent ? maxRetention : Math.min(retentionMs ?? DEFAULT_RETENTION_MS, maxRetention);
      // Whole seconds: the URL carries a unix timestamp (a permanent file without a cap: a far one).
      const expires = Number.isFinite(retention) ? Math.floor((Date.now() + retention) / 1000) : PERMANENT_EXPIRES;
      const meta: Meta = { contentType, extension: ext, expiresAt: expires * 1000, size: data.byteLength };
      const tmp = join(dir, `${id}.tmp`);
      await writeFile(tmp, data);
      await rename(tmp, dataPath(id, ext));
      await writeFile(metaPath(id), JSON.stringify(meta));
      const url = `${opts.publicBaseUrl().replace(/\/+$/, '')}/files/${id}?expires=${expires}&sig=${sign(secret, id, expires)}`;
      return { id, url, expiresAt: new Date(meta.expiresAt), size: meta.size, contentType } satisfies StoredFile;
    },
    async open(id, expires, sig): Promise<OpenedFile> {
      const exp = typeof expires === 'number' ? expires : Number(expires);
      if (!ID_RE.test(id) || !Number.isSafeInteger(exp) || typeof sig !== 'string' || !/^[0-9a-f]{64}$/.test(sig)) throw new NotFoundError(GONE);
      const good = Buffer.from(sign(secret, id, exp), 'hex');
      if (!timingSafeEqual(good, Buffer.from(sig, 'hex'))) throw new NotFoundError(GONE);
      const now = Date.now();
      if (exp * 1000 <= now) throw new NotFoundError(GONE);
      const meta = await readMeta(id);
      if (!meta || meta.expiresAt <= now) throw new NotFoundError(GONE);
      const path = dataPath(id, meta.extension);
      const st = await stat(path).catch(() => undefined);
      if (!st) throw new NotFoundError(GONE);
      return { path, contentType: meta.contentType, size: st.size, expiresAt: new Date(meta.expiresAt), filename: `${id}.${meta.extension}` };
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
