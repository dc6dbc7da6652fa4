/**
 * A cheap look at what pdf-lib would decompress before it parses a file (issue 24, finding 2 and
 * its bench: a merge of object-stream bombs kept the PDF threads inflating 100 MB each, in
 * JavaScript, ~0.55 s of CPU per refused request, while another key's small merge waited for a
 * core). pdf-lib decodes object streams (`/Type /ObjStm`) and cross-reference streams
 * (`/Type /XRef`) whole while it parses; when those streams' Flate data inflates past what the
 * job may still decode, the file is refused before pdf-lib starts. zlib inflates natively, about
 * ten times faster, and its output is counted and dropped as it comes, never held.
 *
 * Only a pre-check: streams it cannot find or read (another filter, a damaged file) are left to
 * the decode cap inside pdf-lib (decode-cap.ts), which stays the rule. It refuses no file the cap
 * would accept, since it counts the same streams' bytes exactly where the cap counts buffers.
 */
import { createInflate } from 'node:zlib';

const STREAM = Buffer.from('stream');
const END = Buffer.from('endstream');
const OBJ = Buffer.from('obj');
/** How far back from `stream` a dictionary is looked for (those of these streams are short). */
const DICT_WINDOW = 64 * 1024;
const EAGER_TYPE = /\/Type\s*\/(?:ObjStm|XRef)(?![A-Za-z0-9])/;
/** Flate alone (a chain of filters is left to the decode cap). */
const FLATE_ONLY = /\/Filter\s*(?:\/FlateDecode|\[\s*\/FlateDecode\s*\])(?![A-Za-z0-9])/;

/** The raw data of each Flate object or cross-reference stream found in `bytes`. */
export function eagerFlateStreams(bytes: Uint8Array): Uint8Array[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found: Uint8Array[] = [];
  let at = 0;
  for (;;) {
    const pos = buf.indexOf(STREAM, at);
    if (pos < 0) return found;
    at = pos + STREAM.length;
    // `endstream`, or `stream` not followed by its end of line: not a stream's start.
    if (buf[pos - 1] === 0x64 /* d */) continue;
    let start = at;
    if (buf[start] === 0x0d) start += 1;
    if (buf[start] !== 0x0a && start === at) continue;
    if (buf[start] === 0x0a) start += 1;
    const from = Math.max(0, pos - DICT_WINDOW);
    const obj = buf.lastIndexOf(OBJ, pos);
    const dict = buf.toString('latin1', obj >= from ? obj : from, pos);
    if (!EAGER_TYPE.test(dict) || !FLATE_ONLY.test(dict)) continue;
    const end = buf.indexOf(END, start);
    found.push(buf.subarray(start, end < 0 ? buf.length : end));
    if (end > 0) at = end + END.length;
  }
}

/**
 * Size of each piece zlib inflates into (a new buffer each, counted and dropped). At the
 * deployment's glibc mmap threshold (256 KB, deploy/Dockerfile), so each piece is mapped and
 * given back to the kernel when dropped. Pieces of 128 KB came from the heap instead and cost a
 * little less CPU (79-89 against 109-121 ms per refused 4-bomb merge, load 16), but the heap kept
 * what the flood had used: the instance was +133 MB 36 s after a PDF-bomb flood against +25 MB
 * with 256 KB pieces (bench:abuse, same run, load 1-1.5), over the issue's +100 MB target.
 */
const CHUNK = 256 * 1024;

/**
 * Bytes the streams inflate to, counted up to `limit`: returns as soon as the count passes it.
 * A stream zlib cannot read counts what it gave before failing.
 */
export async function inflatedSize(streams: Uint8Array[], limit: number): Promise<number> {
  let total = 0;
  for (const data of streams) {
    total += await new Promise<number>((resolve) => {
      let n = 0;
      const z = createInflate({ chunkSize: CHUNK });
      const finish = () => {
        z.removeAllListeners();
        z.on('error', () => {});
        z.destroy();
        resolve(n);
      };
      z.on('data', (chunk: Buffer) => {
        n += chunk.length;
        if (total + n > limit) finish();
      });
      z.once('end', finish);
      z.once('error', finish);
      z.end(data);
    });
    if (total > limit) break;
  }
  return total;
}
