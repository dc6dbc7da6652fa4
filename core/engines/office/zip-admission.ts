/**
 * Admission of ZIP-based documents before LibreOffice sees them (issue 24, finding 1): OOXML
 * (docx, xlsx, pptx) and ODF (odt, ods, odp) files are ZIP archives, and a 1 MB one can declare
 * hundreds of megabytes of XML that LibreOffice inflates and parses into many gigabytes. The
 * central directory states every entry's sizes, so it is read (nothing is inflated) and an
 * archive over the caps is refused with a free 400 before any work. Sizes an archive lies about
 * are the memory cap's to stop (see cgroup.ts of this engine).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { InputError } from '../../errors.js';

/** Caps on what one archive may declare. */
export interface ZipCaps {
  /** Sum of the entries' uncompressed sizes, in bytes. */
  maxUncompressedBytes: number;
  /** Largest uncompressed/compressed ratio of one entry (checked on entries over `ratioFloorBytes`). */
  maxRatio: number;
  /** Most entries in the archive. */
  maxEntries: number;
}

/** Entries smaller than this are not held to the ratio: tiny XML parts compress very well and cost nothing. */
const RATIO_FLOOR_BYTES = 1_000_000;

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;

/** True when the bytes start like a ZIP archive (a local file header or an empty archive). */
export function isZip(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0x50 && data[1] === 0x4b && ((data[2] === 3 && data[3] === 4) || (data[2] === 5 && data[3] === 6));
}

const mb = (n: number) => `${Math.round(n / 1_000_000)} MB`;

function damaged(what: string): InputError {
  return new InputError(`The file is not a valid ${what}: its ZIP structure is damaged.`);
}

/**
 * Where the central directory is and how many entries it says it holds. `buf` is the archive's
 * end from `base` on (all of it by default) in an archive of `total` bytes; offsets are the archive's.
 */
function directory(buf: Buffer, what: string, base = 0, total = buf.length): { offset: number; size: number; entries: number } {
  // The end record is 22 bytes plus a comment of at most 65535: search backwards from the end.
  const lowest = Math.max(0, buf.length - 22 - 65_535);
  let at = -1;
  for (let i = buf.length - 22; i >= lowest; i--) {
    if (buf.readUInt32LE(i) === EOCD) {
      at = i;
      break;
    }
  }
  if (at < 0) throw damaged(what);
  let entries = buf.readUInt16LE(at + 10);
  let size = buf.readUInt32LE(at + 12);
  let offset = buf.readUInt32LE(at + 16);
  // ZIP64: the 16- and 32-bit fields are saturated and the real values sit in the ZIP64 end record.
  if ((entries === 0xffff || size === 0xffffffff || offset === 0xffffffff) && at >= 20 && buf.readUInt32LE(at - 20) === ZIP64_LOCATOR) {
    const rec = Number(buf.readBigUInt64LE(at - 20 + 8)) - base;
    if (rec < 0 || rec + 56 > buf.length || buf.readUInt32LE(rec) !== ZIP64_EOCD) throw damaged(what);
    entries = Number(buf.readBigUInt64LE(rec + 32));
    size = Number(buf.readBigUInt64LE(rec + 40));
    offset = Number(buf.readBigUInt64LE(rec + 48));
  }
  if (offset + size > total) throw damaged(what);
  return { offset, size, entries };
}

/**
 * Checks a ZIP archive's central directory against `caps`; `what` names the input in the error
 * texts (`.docx file`). Throws `InputError` (400) for an archive over a cap or one whose
 * directory cannot be read (LibreOffice would otherwise scan the local headers, unchecked).
 */
export function admitZip(data: Uint8Array, caps: ZipCaps, what: string): void {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const dir = directory(buf, what);
  checkEntries(buf.subarray(dir.offset, dir.offset + dir.size), dir.entries, caps, what);
}

/** The end of an archive that holds its end record, comment and ZIP64 locator and record. */
const TAIL_BYTES = 22 + 65_535 + 20 + 56;

/** `length` bytes of `fh` from `offset`. */
async function readAt(fh: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, offset);
  return buf.subarray(0, bytesRead);
}

/**
 * {@link admitZip} of the archive in `file`, when it is one, reading its end and its central
 * directory only (issue 24: a large body's file, or a downloaded one, was read whole into the
 * serving thread's memory to be checked and then written out again for LibreOffice).
 */
export async function admitZipFile(file: string, caps: ZipCaps, what: string): Promise<void> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    if (!isZip(await readAt(fh, 0, Math.min(4, size)))) return;
    const base = Math.max(0, size - TAIL_BYTES);
    const dir = directory(await readAt(fh, base, size - base), what, base, size);
    if (dir.entries > caps.maxEntries) throw tooManyEntries(dir.entries, caps, what);
    checkEntries(await readAt(fh, dir.offset, dir.size), dir.entries, caps, what);
  } finally {
    await fh.close();
  }
}

/** Most of a central directory read for its names (some 10,000 entries). */
const NAMES_BYTES = 1 << 20;

/**
 * Names of the entries in the central directory of the archive in `file`, read as
 * {@link admitZipFile} reads it (its end, then its directory; nothing else): enough for a format
 * sniff to tell OOXML kinds apart without holding the file. Undefined when the file has no
 * readable end record or its directory lies outside it (a caller may then try the local headers).
 */
export async function zipEntryNamesOfFile(file: string): Promise<string[] | undefined> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const base = Math.max(0, size - TAIL_BYTES);
    let dir;
    try {
      dir = directory(await readAt(fh, base, size - base), 'archive', base, size);
    } catch (err) {
      if (err instanceof InputError) return undefined;
      throw err;
    }
    // A sniff needs a few names, not all: a directory claiming the whole file is read in part.
    const buf = await readAt(fh, dir.offset, Math.min(dir.size, NAMES_BYTES));
    const names: string[] = [];
    for (let n = 0, pos = 0; n < dir.entries && pos + 46 <= buf.length && buf.readUInt32LE(pos) === CENTRAL; n++) {
      const nameLen = buf.readUInt16LE(pos + 28);
      names.push(buf.toString('utf8', pos + 46, Math.min(buf.length, pos + 46 + nameLen)));
      pos += 46 + nameLen + buf.readUInt16LE(pos + 30) + buf.readUInt16LE(pos + 32);
    }
    return names;
  } finally {
    await fh.close();
  }
}

const tooManyEntries = (entries: number, caps: ZipCaps, what: string) =>
  new InputError(`The ${what} holds ${entries} archive entries, more than the ${caps.maxEntries} this service opens.`);

/** Checks the `entries` of a central directory (`buf`: its bytes) against `caps`. */
function checkEntries(buf: Buffer, entries: number, caps: ZipCaps, what: string): void {
  if (entries > caps.maxEntries) throw tooManyEntries(entries, caps, what);
  let total = 0;
  let pos = 0;
  const end = buf.length;
  for (let n = 0; n < entries; n++) {
    if (pos + 46 > end || buf.readUInt32LE(pos) !== CENTRAL) throw damaged(what);
    let compressed = buf.readUInt32LE(pos + 20);
    let uncompressed = buf.readUInt32LE(pos + 24);
    const nameLen = buf.readUInt16LE(pos + 28);
    const extraLen = buf.readUInt16LE(pos + 30);
    const commentLen = buf.readUInt16LE(pos + 32);
    const next = pos + 46 + nameLen + extraLen + commentLen;
    if (next > end) throw damaged(what);
    const name = buf.toString('utf8', pos + 46, pos + 46 + nameLen);
    if (uncompressed === 0xffffffff || compressed === 0xffffffff) {
      // ZIP64 extended information (header 0x0001): the saturated sizes in order, uncompressed first.
      let x = pos + 46 + nameLen;
      const xEnd = x + extraLen;
      while (x + 4 <= xEnd) {
        const id = buf.readUInt16LE(x);
        const len = buf.readUInt16LE(x + 2);
        if (id === 0x0001) {
          let f = x + 4;
          if (uncompressed === 0xffffffff && f + 8 <= x + 4 + len) {
            uncompressed = Number(buf.readBigUInt64LE(f));
            f += 8;
          }
          if (compressed === 0xffffffff && f + 8 <= x + 4 + len) compressed = Number(buf.readBigUInt64LE(f));
          break;
        }
        x += 4 + len;
      }
    }
    total += uncompressed;
    if (total > caps.maxUncompressedBytes) {
      throw new InputError(`The ${what} declares more than ${mb(caps.maxUncompressedBytes)} of uncompressed content, the most this service opens.`);
    }
    if (uncompressed > RATIO_FLOOR_BYTES && uncompressed / Math.max(1, compressed) > caps.maxRatio) {
      const ratio = Math.round(uncompressed / Math.max(1, compressed));
      throw new InputError(`The ${what} is refused: its part '${name.slice(0, 200)}' expands ${ratio} times (${mb(uncompressed)}), more than the ${caps.maxRatio}× this service opens.`);
    }
    pos = next;
  }
}
