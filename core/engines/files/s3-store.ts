/**
 * File store on an S3-compatible bucket (issue 25, "The engine": what a job produces must be
 * reachable from every instance). Each file is one object, `<prefix><id>.<expires>`: the expiry in
 * the key lets a paged listing find expired objects without reading each one, and the signed link
 * (id + expiry) names the key directly. Content type, size, extension and expiry also travel as the
 * object's own metadata, so any instance sharing the bucket and the signing secret can serve,
 * list, delete and sweep without local state.
 */
import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { EngineOptions } from '../options.js';
import { PERMANENT_EXPIRES, type ByteRange, type FileStore, type ListedFile, type OpenedFile, type OwnedFile, type StoredFile } from './types.js';
import { NotFoundError } from '../../errors.js';
import { createLinks, GONE, ID_RE } from './signing.js';
import { createS3Client, isMissing, storeError, type S3Settings } from './s3-client.js';

/** Objects one listing page asks for (S3's own maximum). */
const PAGE = 1000;
/** Store requests one sweep or listing keeps in flight at once. */
const PARALLEL = 8;
/** Longest validity of a SigV4 presigned URL (7 days): longer-lived files keep the service's link. */
const MAX_PRESIGN_S = 7 * 24 * 3600;

/** Runs `fn` on every item, at most `PARALLEL` at a time. */
async function eachLimited<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
}

/** Creates the bucket-backed store and starts its sweeper (an unref'd timer, stopped by `close`). */
export function createS3FileStore(opts: EngineOptions, settings: S3Settings, client: S3Client = createS3Client(settings)): FileStore & { close(): Promise<void>; sweep(): Promise<number> } {
  const links = createLinks(opts);
  const { bucket, prefix } = settings;
  const keyOf = (id: string, expires: number) => `${prefix}${id}.${expires}`;
  const KEY_RE = /^([A-Za-z0-9_-]{32})\.(\d{1,16})$/;
  /** The id and expiry (ms) of one of our keys; undefined for anything else in the bucket. */
  const parseKey = (key: string | undefined): { id: string; expiresAt: number } | undefined => {
    if (!key?.startsWith(prefix)) return undefined;
    const m = KEY_RE.exec(key.slice(prefix.length));
    return m ? { id: m[1]!, expiresAt: Number(m[2]) * 1000 } : undefined;
  };

  /** Walks our keys page by page (one page in memory at a time), below `under` (default: all). */
  async function eachPage(under: string, fn: (keys: { key: string; id: string; expiresAt: number; size: number }[]) => Promise<void>): Promise<void> {
    let token: string | undefined;
    do {
      let page;
      try {
        page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: under, MaxKeys: PAGE, ContinuationToken: token }));
      } catch (err) {
        throw storeError(err, 'list files');
      }
      const keys = [];
      for (const o of page.Contents ?? []) {
        const k = parseKey(o.Key);
        if (k) keys.push({ key: o.Key!, ...k, size: o.Size ?? 0 });
      }
      await fn(keys);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * Deletes every expired object below the prefix; returns how many this sweep removed. Another
   * instance sweeping at the same time is harmless: deleting a key twice is not an error in S3.
   */
  async function sweep(): Promise<number> {
    let removed = 0;
    await eachPage(prefix, async (keys) => {
      const now = Date.now();
      await eachLimited(keys.filter((k) => k.expiresAt <= now), async (k) => {
        try {
          await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: k.key }));
        } catch (err) {
          throw storeError(err, 'delete an expired file');
        }
        removed++;
      });
    });
    return removed;
  }

  // A sweep of a large bucket may outlast the interval: a tick that finds one running skips its turn.
  let sweeping: Promise<void> | undefined;
  const swept = () => {
    sweeping ??= sweep()
      .then(() => undefined, (err: unknown) => opts.log.warn({ err }, 'file sweep failed'))
      .finally(() => {
        sweeping = undefined;
      });
  };
  swept();
  const timer = setInterval(swept, links.sweepEvery);
  timer.unref();

  /**
   * The link handed out: the service's own signed link, or with `FILES_S3_PRESIGNED_LINKS` a
   * presigned GET of the object (signed locally, no request), valid until the file's expiry.
   */
  async function linkFor(id: string, expires: number): Promise<string> {
    const left = expires - Math.floor(Date.now() / 1000);
    if (!settings.presignedLinks || left > MAX_PRESIGN_S) return links.url(id, expires);
    try {
      return await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: keyOf(id, expires) }), { expiresIn: Math.max(1, left) });
    } catch (err) {
      throw storeError(err, 'sign the download link');
    }
  }

  return {
    sweep,
    async put(data, { contentType, extension, retentionMs, permanent, owner }): Promise<StoredFile> {
      const ext = links.extension(extension);
      const id = links.newId();
      const expires = links.expiresFor({ retentionMs, permanent, owner });
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: keyOf(id, expires),
            Body: data,
            ContentLength: data.byteLength,
            ContentType: contentType,
            ContentDisposition: `inline; filename="${id}.${ext}"`,
            Metadata: { extension: ext, expires: String(expires), ...(owner ? { owner } : {}) },
          }),
        );
      } catch (err) {
        throw storeError(err, 'store the file');
      }
      return { id, url: await linkFor(id, expires), expiresAt: new Date(expires * 1000), size: data.byteLength, contentType };
    },

    async open(id, expires, sig): Promise<OpenedFile> {
      const exp = links.check(id, expires, sig);
      const Key = keyOf(id, exp);
      let head;
      try {
        head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key }));
      } catch (err) {
        throw storeError(err, 'read the file');
      }
      const expiresAt = Number(head.Metadata?.expires) * 1000;
      if (!(expiresAt > Date.now())) throw new NotFoundError(GONE);
      const size = head.ContentLength ?? 0;
      const stream = async (range?: ByteRange): Promise<Readable> => {
        try {
          const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }));
          const body = got.Body;
          if (body instanceof Readable) return body;
          if (!body) throw new NotFoundError(GONE);
          return Readable.from(Buffer.from(await body.transformToByteArray()));
        } catch (err) {
          throw storeError(err, 'read the file');
        }
      };
      return {
        contentType: head.ContentType ?? 'application/octet-stream',
        size,
        expiresAt: new Date(expiresAt),
        filename: `${id}.${head.Metadata?.extension ?? 'bin'}`,
        stream,
        async bytes() {
          const chunks: Buffer[] = [];
          for await (const c of await stream()) chunks.push(c as Buffer);
          return Buffer.concat(chunks);
        },
      };
    },

    async delete(id) {
      if (!ID_RE.test(id)) return false;
      let found = false;
      // The key carries the expiry, which an operator does not know: find it by the id's prefix.
      await eachPage(`${prefix}${id}.`, async (keys) => {
        for (const k of keys) {
          if (k.id !== id) continue;
          try {
            await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: k.key }));
          } catch (err) {
            if (isMissing(err)) continue;
            throw storeError(err, 'delete the file');
          }
          found = true;
        }
      });
      return found;
    },

    async list() {
      const out: ListedFile[] = [];
      await eachPage(prefix, async (keys) => {
        const now = Date.now();
        // A listing carries no content type: one HEAD per live file (this is an operator's view).
        await eachLimited(keys.filter((k) => k.expiresAt > now), async (k) => {
          try {
            const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: k.key }));
            out.push({ id: k.id, contentType: head.ContentType ?? 'application/octet-stream', size: head.ContentLength ?? k.size, expiresAt: new Date(k.expiresAt) });
          } catch (err) {
            if (!isMissing(err)) throw storeError(err, 'list files');
          }
        });
      });
      return out.sort((a, b) => b.expiresAt.getTime() - a.expiresAt.getTime());
    },

    async owned() {
      const out: OwnedFile[] = [];
      await eachPage(prefix, async (keys) => {
        // An owned file always carries the far expiry, so only those keys need a HEAD for their owner.
        await eachLimited(keys.filter((k) => k.expiresAt === PERMANENT_EXPIRES * 1000), async (k) => {
          try {
            const owner = (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: k.key }))).Metadata?.owner;
            if (owner) out.push({ id: k.id, owner });
          } catch (err) {
            if (!isMissing(err)) throw storeError(err, 'list files');
          }
        });
      });
      return out;
    },

    async close() {
      clearInterval(timer);
      await sweeping;
      client.destroy();
    },
  };
}
