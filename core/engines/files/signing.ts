/**
 * What both file-store backends share: the id and extension grammar, the retention rules and the
 * HMAC-signed, expiring download links (spec §8.2). A link names only an id and an expiry, so any
 * instance holding the same secret can check it, whichever backend keeps the bytes.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineOptions } from '../options.js';
import { PERMANENT_EXPIRES } from './types.js';
import { InputError, NotFoundError } from '../../errors.js';

/** Default retention of produced files (spec §8.2: converted and merged PDFs, 24 hours). */
export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** A file id: 24 random bytes, base64url. */
export const ID_RE = /^[A-Za-z0-9_-]{32}$/;
const EXT_RE = /^[a-z0-9]{1,10}$/;
/** One answer for an unknown id, a bad signature and an expired link, so ids cannot be probed. */
export const GONE = 'File not found or the download link has expired.';

/** Reads the signing secret: `FILES_SIGNING_SECRET`, else one generated once and kept in dataDir. */
export function loadSecret(opts: EngineOptions): Buffer {
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

/** Signs links and checks them; the retention settings every backend applies alike. */
export interface Links {
  /** `FILES_MAX_RETENTION_MS`, or Infinity. */
  maxRetention: number;
  /** `FILES_SWEEP_INTERVAL_MS` (10 minutes by default). */
  sweepEvery: number;
  /** A fresh random id. */
  newId(): string;
  /** The normalised extension, or an `InputError` for one that is not a short lowercase token. */
  extension(extension: string): string;
  /** The expiry (unix seconds) of a file stored now with these options. */
  expiresFor(opts: { retentionMs?: number; permanent?: boolean; owner?: string }): number;
  /** `${publicBaseUrl}/files/<id>?expires=<unix>&sig=<hex>`. */
  url(id: string, expires: number): string;
  /** The expiry of a well-formed, correctly signed, unexpired link; `NotFoundError` otherwise. */
  check(id: string, expires: string | number | undefined, sig: string | undefined): number;
}

/** Builds the link signer from the engine options. */
/**
 * A new file id. One in 64 random ids would start with '-', which a command line reads as an
 * option (`npm run admin -- files delete -7Kq…` was refused as an unknown option '-7'): such an
 * id starts with 'A' instead (the id keeps 191.9 of its 192 random bits).
 */
export function newId(): string {
  const id = randomBytes(24).toString('base64url');
  return id.startsWith('-') ? `A${id.slice(1)}` : id;
}

export function createLinks(opts: EngineOptions): Links {
  const secret = loadSecret(opts);
  const maxRetention = Number(opts.env.FILES_MAX_RETENTION_MS) > 0 ? Number(opts.env.FILES_MAX_RETENTION_MS) : Infinity;
  const sweepEvery = Number(opts.env.FILES_SWEEP_INTERVAL_MS) > 0 ? Number(opts.env.FILES_SWEEP_INTERVAL_MS) : 10 * 60 * 1000;
  return {
    maxRetention,
    sweepEvery,
    newId,
    extension(extension) {
      const ext = extension.replace(/^\./, '').toLowerCase();
      if (!EXT_RE.test(ext)) throw new InputError(`Unsupported file extension '${extension}'.`);
      return ext;
    },
    expiresFor({ retentionMs, permanent, owner }) {
      // A file kept for a record (a job's input) goes with the record, never before it.
      if (owner) return PERMANENT_EXPIRES;
      const retention = permanent ? maxRetention : Math.min(retentionMs ?? DEFAULT_RETENTION_MS, maxRetention);
      // Whole seconds: the URL carries a unix timestamp (a permanent file without a cap: a far one).
      return Number.isFinite(retention) ? Math.floor((Date.now() + retention) / 1000) : PERMANENT_EXPIRES;
    },
    url: (id, expires) => `${opts.publicBaseUrl().replace(/\/+$/, '')}/files/${id}?expires=${expires}&sig=${sign(secret, id, expires)}`,
    check(id, expires, sig) {
      const exp = typeof expires === 'number' ? expires : Number(expires);
      if (!ID_RE.test(id) || !Number.isSafeInteger(exp) || typeof sig !== 'string' || !/^[0-9a-f]{64}$/.test(sig)) throw new NotFoundError(GONE);
      const good = Buffer.from(sign(secret, id, exp), 'hex');
      if (!timingSafeEqual(good, Buffer.from(sig, 'hex'))) throw new NotFoundError(GONE);
      if (exp * 1000 <= Date.now()) throw new NotFoundError(GONE);
      return exp;
    },
  };
}
