/**
 * Hostile inputs of issue 24, built in memory so the benchmark ships no binary fixtures: each is
 * small on the wire and huge once decoded (ZIP entries, a PDF object stream, PNG rows), or cheap
 * to send and costly to process (thousands of blank pages, deep JSON).
 */
import { createDeflate, createDeflateRaw, crc32 } from 'node:zlib';
import { DOCX_HEAD, DOCX_TAIL, docxAround } from '../../test/helpers/zip.js';

/**
 * Compresses `head`, then `chunk` repeated `times` times, then `tail`, without ever holding the
 * inflated data; returns the compressed bytes, the CRC-32 and the size of what they inflate to.
 */
async function deflateRepeated(parts: { head?: Buffer; chunk: Buffer; times: number; tail?: Buffer }, raw: boolean): Promise<{ data: Buffer; crc: number; size: number }> {
  const stream = raw ? createDeflateRaw({ level: 9 }) : createDeflate({ level: 9 });
  const out: Buffer[] = [];
  stream.on('data', (b: Buffer) => out.push(b));
  const done = new Promise<void>((resolve, reject) => {
    stream.once('end', resolve);
    stream.once('error', reject);
  });
  const head = parts.head ?? Buffer.alloc(0);
  const tail = parts.tail ?? Buffer.alloc(0);
  let crc = crc32(head);
  stream.write(head);
  for (let i = 0; i < parts.times; i++) {
    crc = crc32(parts.chunk, crc);
    // Waiting for drain keeps the compressor's input queue from growing to the inflated size.
    if (!stream.write(parts.chunk)) await new Promise((r) => stream.once('drain', r));
  }
  crc = crc32(tail, crc);
  stream.end(tail);
  await done;
  return { data: Buffer.concat(out), crc, size: head.length + parts.times * parts.chunk.length + tail.length };
}

/** A chunk of about `size` bytes made of `unit` repeated. */
const repeatedChunk = (unit: string, size = 1 << 22) => Buffer.alloc(Math.max(unit.length, size - (size % unit.length)), unit);

/**
 * A DOCX whose `word/document.xml` holds `paragraphs` one-letter paragraphs: 10⁷ inflate to
 * about 340 MB from under 1 MB (finding 1).
 */
export async function officeZipBomb(paragraphs = 10_000_000): Promise<Buffer> {
  const unit = '<w:p><w:r><w:t>A</w:t></w:r></w:p>';
  const perChunk = Math.max(1, Math.floor((1 << 22) / unit.length));
  const body = await deflateRepeated({ head: Buffer.from(DOCX_HEAD), chunk: repeatedChunk(unit, perChunk * unit.length), times: Math.ceil(paragraphs / perChunk), tail: Buffer.from(DOCX_TAIL) }, true);
  return docxAround({ deflated: body.data, crc: body.crc, size: body.size });
}

/** Serialises numbered PDF objects with a classic cross-reference table. */
function pdf(objects: (string | Buffer)[], rootRef = '1 0 R'): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.isBuffer(body) ? body : Buffer.from(body), Buffer.from('\nendobj\n')]);
    parts.push(obj);
    offset += obj.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root ${rootRef} >>\nstartxref\n${offset}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A PDF of `pages` empty pages (nothing to extract, so every page goes to OCR: finding 4). */
export function blankPagesPdf(pages: number): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`];
  for (let i = 0; i < pages; i++) objects.push('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>');
  return pdf(objects);
}

/** A one-page PDF whose one object stream inflates to `inflatedBytes` of blanks (finding 2). */
export async function objectStreamBombPdf(inflatedBytes = 1 << 30): Promise<Buffer> {
  const chunk = repeatedChunk(' ');
  // The stream's one object (number 5) is `null` followed by the blanks; /First skips "5 0 ".
  const { data } = await deflateRepeated({ head: Buffer.from('5 0 null'), chunk, times: Math.ceil(inflatedBytes / chunk.length) }, false);
  const stream = Buffer.concat([Buffer.from(`<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream')]);
  return pdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>', stream]);
}

/** One PNG chunk with its length and CRC. */
function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(Buffer.from(type, 'latin1'))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** An all-zero RGBA PNG of `side`×`side` pixels: 16000 gives 1 GB of pixels in about 1 MB (finding 3). */
export async function pngBomb(side = 16_000): Promise<Buffer> {
  const row = 1 + side * 4;
  const rowsPerChunk = Math.max(1, Math.floor((1 << 22) / row));
  const full = Math.floor(side / rowsPerChunk);
  const idat = await deflateRepeated({ chunk: Buffer.alloc(row * rowsPerChunk), times: full, tail: Buffer.alloc(row * (side - full * rowsPerChunk)) }, false);
  return pngOf(side, side, idat.data);
}

/** A PNG from its dimensions and deflated RGBA rows. */
function pngOf(width: number, height: number, idat: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A small ordinary PNG (white, 64×64), the victim's image. */
export async function smallPng(): Promise<Buffer> {
  const row = Buffer.alloc(1 + 64 * 4, 0xff);
  row[0] = 0;
  return pngOf(64, 64, (await deflateRepeated({ chunk: row, times: 64 }, false)).data);
}

/** A JSON text nested `depth` arrays deep (finding 7). */
export const deepJson = (depth = 10_000) => '{"a":' + '['.repeat(depth) + ']'.repeat(depth) + '}';

/** An HLS playlist pointing at a host file, sent as "audio" or "image" (finding 5). */
export const hlsPlaylist = (target = '/etc/hostname') => Buffer.from(`#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nfile://${target}\n#EXT-X-ENDLIST\n`);
