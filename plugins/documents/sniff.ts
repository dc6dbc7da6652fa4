/**
 * Type checks on the input bytes (spec §4.6: 400 for an unsupported or unrecognisable format).
 * LibreOffice "converts" random bytes named `.docx` into a page of garbage, so the bytes must
 * agree with the claimed format before a worker sees them; for base64 input without a type
 * hint, the format is taken from the bytes alone.
 */
import { InputError } from '../../core/sdk.js';
import { MEDIA_TYPES } from './formats.js';

const OOXML = new Set(['docx', 'docm', 'dotx', 'dotm', 'xlsx', 'xlsm', 'xlsb', 'xltx', 'xltm', 'pptx', 'pptm', 'potx', 'potm', 'vsdx', 'vsdm']);
const ZIPPED = new Set(['odt', 'ods', 'odp', 'odg', 'odm', 'ott', 'ots', 'otp', 'otg', 'oth', 'sxw', 'sxc', 'sxi', 'sxd', 'sxg', 'sxm', 'stw', 'stc', 'sti', 'std', 'epub']);
const OLE = new Set(['doc', 'dot', 'xls', 'xlt', 'xlw', 'ppt', 'pot', 'pps', 'vsd', 'pub', 'sdw', 'sdc', 'sdd', 'sda', 'sgl']);
const TEXT = new Set(['txt', 'csv', 'html', 'htm', 'xhtml', 'xml', 'svg', 'rtf', 'fodt', 'fods', 'fodp', 'fodg', 'ltx', 'bib', 'mml', 'slk', 'dif']);
const IMAGES: Record<string, (b: Buffer) => boolean> = {
  png: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  gif: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
  bmp: (b) => b.subarray(0, 2).toString('latin1') === 'BM',
  tiff: (b) => ['II*\0', 'MM\0*'].includes(b.subarray(0, 4).toString('latin1')),
  webp: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  psd: (b) => b.subarray(0, 4).toString('latin1') === '8BPS',
};
IMAGES.jpeg = IMAGES.jpg!;
IMAGES.tif = IMAGES.tiff!;

const isZip = (b: Buffer) => b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
const isOle = (b: Buffer) => b.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]));
const utf16 = (s: string) => Buffer.from(s, 'utf16le');

/** Names of the entries in a ZIP's central directory (enough to tell OOXML kinds apart). */
function zipNames(b: Buffer): string[] {
  const min = Math.max(0, b.length - 65_557);
  for (let i = b.length - 22; i >= min; i--) {
    if (b.readUInt32LE(i) !== 0x06054b50) continue;
    const count = b.readUInt16LE(i + 10);
    let p = b.readUInt32LE(i + 16);
    const names: string[] = [];
    for (let n = 0; n < count && p + 46 <= b.length && b.readUInt32LE(p) === 0x02014b50; n++) {
      const nameLen = b.readUInt16LE(p + 28);
      names.push(b.subarray(p + 46, p + 46 + nameLen).toString('utf8'));
      p += 46 + nameLen + b.readUInt16LE(p + 30) + b.readUInt16LE(p + 32);
    }
    return names;
  }
  return [];
}

/** Media types an ODF or EPUB container names in its `mimetype` entry, from the one table of them. */
const ODF_TYPES: Record<string, string> = Object.fromEntries(
  Object.entries(MEDIA_TYPES).filter(([mime]) => mime.startsWith('application/vnd.oasis.opendocument.') || mime === 'application/epub+zip'),
);

function zipKind(b: Buffer): string | undefined {
  // ODF and EPUB store an uncompressed `mimetype` entry first.
  if (b.subarray(30, 38).toString('latin1') === 'mimetype') {
    const start = 30 + b.readUInt16LE(26) + b.readUInt16LE(28);
    const mime = b.subarray(start, start + b.readUInt32LE(18)).toString('latin1').trim();
    if (ODF_TYPES[mime]) return ODF_TYPES[mime];
  }
  const names = zipNames(b);
  if (names.some((n) => n.startsWith('word/'))) return 'docx';
  if (names.some((n) => n.startsWith('xl/'))) return names.includes('xl/workbook.bin') ? 'xlsb' : 'xlsx';
  if (names.some((n) => n.startsWith('ppt/'))) return 'pptx';
  if (names.some((n) => n.startsWith('visio/'))) return 'vsdx';
  if (names.includes('mimetype') && names.includes('content.xml')) return 'odt';
  return undefined;
}

function oleKind(b: Buffer): string | undefined {
  if (b.includes(utf16('EncryptionInfo'))) return 'encrypted';
  if (b.includes(utf16('WordDocument'))) return 'doc';
  if (b.includes(utf16('Workbook')) || b.includes(utf16('Book'))) return 'xls';
  if (b.includes(utf16('PowerPoint Document'))) return 'ppt';
  if (b.includes(utf16('VisioDocument'))) return 'vsd';
  if (b.includes(utf16('Quill'))) return 'pub';
  return undefined;
}

/** Plain text: no NUL bytes in the head (UTF-16 text starts with a BOM). */
function isText(b: Buffer): boolean {
  if ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff)) return true;
  return !b.subarray(0, 8192).includes(0);
}

function textKind(b: Buffer): string {
  const head = b.subarray(0, 8192).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  const lower = head.toLowerCase();
  if (head.startsWith('{\\rtf')) return 'rtf';
  if (lower.startsWith('<')) {
    if (lower.includes('<svg')) return 'svg';
    if (lower.includes('<html') || lower.startsWith('<!doctype html')) return 'html';
    const fod = /office:mimetype="application\/vnd\.oasis\.opendocument\.(text|spreadsheet|presentation|graphics)"/.exec(head);
    if (fod) return { text: 'fodt', spreadsheet: 'fods', presentation: 'fodp', graphics: 'fodg' }[fod[1]!]!;
    if (lower.startsWith('<?xml')) return 'xml';
    return 'html';
  }
  const lines = head.split(/\r?\n/).filter((l) => l.length > 0).slice(0, 20);
  const commas = lines.map((l) => l.split(',').length - 1);
  if (lines.length >= 2 && commas[0]! > 0 && commas.every((c) => c === commas[0])) return 'csv';
  return 'txt';
}

/** The format the bytes show, or undefined when they match nothing we know. */
export function detectFormat(data: Uint8Array): string | undefined {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (b.length === 0) return undefined;
  if (b.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (isZip(b)) return zipKind(b);
  if (isOle(b)) return oleKind(b);
  for (const [ext, test] of Object.entries(IMAGES)) if (test(b)) return ext === 'jpeg' ? 'jpg' : ext === 'tif' ? 'tiff' : ext;
  if (isText(b)) return textKind(b);
  return undefined;
}

const PROTECTED = 'The file is password-protected; remove the password and retry.';

/**
 * Checks that the bytes can be what `ext` claims, for the families whose signature is certain;
 * other formats are left to LibreOffice's own detection. Throws `InputError` otherwise.
 */
export function checkFormat(ext: string, data: Uint8Array): void {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const bad = () => new InputError(`The file is not a valid .${ext} document.`);
  if (b.length === 0) throw new InputError("'file' is empty.");
  if (OOXML.has(ext)) {
    // An encrypted OOXML file is an OLE container holding `EncryptionInfo`.
    if (isOle(b) && oleKind(b) === 'encrypted') throw new InputError(PROTECTED);
    if (!isZip(b)) throw bad();
    return;
  }
  if (ZIPPED.has(ext) && !isZip(b)) throw bad();
  if (OLE.has(ext)) {
    if (isOle(b)) {
      if (oleKind(b) === 'encrypted') throw new InputError(PROTECTED);
      return;
    }
    // Word and Excel files are often RTF, HTML or old BIFF renamed; accept those, not noise.
    const biff = b[0] === 0x09 && [0x00, 0x02, 0x04, 0x08].includes(b[1]!);
    const word2 = b[0] === 0xdb && b[1] === 0xa5;
    if (!(biff || word2 || (isText(b) && ['rtf', 'html', 'xml', 'txt'].includes(textKind(b))))) throw bad();
    return;
  }
  if (IMAGES[ext] && !IMAGES[ext](b)) throw bad();
  if (TEXT.has(ext)) {
    if (!isText(b)) throw bad();
    if (ext === 'rtf' && textKind(b) !== 'rtf') throw bad();
    if (ext === 'svg' && textKind(b) !== 'svg') throw bad();
  }
}
