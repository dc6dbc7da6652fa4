/**
 * What convert-to-pdf's format checks read of an input file (issue 24: the whole input was held
 * in the serving thread's memory to be sniffed): its start and its end, and on demand a search
 * through it in bounded chunks. The file itself is handed to LibreOffice's pool as it is.
 */
import { open, type FileHandle } from 'node:fs/promises';

/** Every signature and text check looks within the first 64 KiB (a dBase header's end is the farthest). */
const HEAD_BYTES = 64 * 1024;
/** A TGA file's footer: the one signature read at the end of a file. */
const TAIL_BYTES = 18;
/** A file this small is read whole: the checks then see exactly the bytes they saw in memory. */
const WHOLE_BYTES = 2 * HEAD_BYTES;
/** Bytes searched at a time by {@link scanFor}. */
const CHUNK_BYTES = 1 << 20;

/** An input file as the format checks see it. */
export interface FileSample {
  file: string;
  size: number;
  /** Its first {@link HEAD_BYTES} (all of a small file). */
  head: Buffer;
  /**
   * The bytes signature tests read: all of a small file; of a larger one, its head followed by
   * its last 18 bytes, so a test at the start reads the file's start and one at the end (TGA's
   * footer) the file's end, and every length test still holds (the file is longer than any header).
   */
  signed: Buffer;
}

/** `length` bytes of `fh` from `offset` (fewer at the end of the file). */
export async function readAt(fh: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(Math.max(0, length));
  const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
  return buf.subarray(0, bytesRead);
}

/** Reads what the checks need of `file` (`size` bytes long). */
export async function sampleOf(file: string, size: number): Promise<FileSample> {
  const fh = await open(file, 'r');
  try {
    if (size <= WHOLE_BYTES) {
      const all = await readAt(fh, 0, size);
      return { file, size, head: all.subarray(0, HEAD_BYTES), signed: all };
    }
    const head = await readAt(fh, 0, HEAD_BYTES);
    const tail = await readAt(fh, size - TAIL_BYTES, TAIL_BYTES);
    return { file, size, head, signed: Buffer.concat([head, tail]) };
  } finally {
    await fh.close();
  }
}

/**
 * Which of `needles` occur anywhere in `file`, from `from` on, searched a chunk at a time (chunks
 * overlap by the longest needle, so one across a boundary is found): the answer a search of the
 * whole file in memory gives. Stops early once `enough` says the ones found settle the question.
 */
export async function scanFor(file: string, needles: Buffer[], enough: (found: Set<number>) => boolean = () => false, from = 0): Promise<Set<number>> {
  const found = new Set<number>();
  const overlap = Math.max(0, ...needles.map((n) => n.length - 1));
  const fh = await open(file, 'r');
  try {
    for (let at = from; ; at += CHUNK_BYTES) {
      const chunk = await readAt(fh, at, CHUNK_BYTES + overlap);
      needles.forEach((n, i) => {
        if (!found.has(i) && chunk.includes(n)) found.add(i);
      });
      // A short read is the file's end.
      if (chunk.length < CHUNK_BYTES + overlap || found.size === needles.length || enough(found)) return found;
    }
  } finally {
    await fh.close();
  }
}

/** Where `needle` first occurs in `file` at or after `from`, or -1 (searched as {@link scanFor} does). */
export async function indexIn(file: string, needle: Buffer, from: number): Promise<number> {
  const fh = await open(file, 'r');
  try {
    for (let at = from; ; at += CHUNK_BYTES) {
      const chunk = await readAt(fh, at, CHUNK_BYTES + needle.length - 1);
      const i = chunk.indexOf(needle);
      if (i >= 0) return at + i;
      if (chunk.length < CHUNK_BYTES + needle.length - 1) return -1;
    }
  } finally {
    await fh.close();
  }
}
