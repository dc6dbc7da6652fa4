/**
 * Type checks on the input bytes (spec §4.6: 400 for an unsupported or unrecognisable format).
 * LibreOffice "converts" random bytes named `.docx` into a page of garbage, so the bytes must
 * agree with the claimed format before a worker sees them; for base64 input without a type
 * hint, the format is taken from the bytes alone. What no signature here names is left to
 * LibreOffice's own type detection (the office engine refuses its plain-text fallback).
 */
import { InputError } from '../../core/sdk.js';
import { MEDIA_TYPES } from './formats.js';
import { hasSignature, signatureFormat } from './signatures.js';

const OOXML = new Set(['docx', 'docm', 'dotx', 'dotm', 'xlsx', 'xlsm', 'xlsb', 'xltx', 'xltm', 'pptx', 'pptm', 'potx', 'potm', 'vsdx', 'vsdm']);
const ZIPPED = new Set(['odt', 'ods', 'odp', 'odg', 'odm', 'ott', 'ots', 'otp', 'otg', 'oth', 'sxw', 'sxc', 'sxi', 'sxd', 'sxg', 'sxm', 'stw', 'stc', 'sti', 'std', 'epub', 'key', 'pages', 'numbers']);
const OLE = new Set(['doc', 'dot', 'xls', 'xlt', 'xlw', 'ppt', 'pot', 'pps', 'vsd', 'pub', 'sdw', 'sdc', 'sdd', 'sda', 'sgl']);
const TEXT = new Set([
  'txt', 'csv', 'html', 'htm', 'xhtml', 'xml', 'svg', 'rtf', 'fodt', 'fods', 'fodp', 'fodg', 'ltx', 'bib', 'mml', 'slk', 'dif',
  'xpm', 'xbm', '602', 'vdx', 'abw',
]);
/** Formats whose signature is certain: bytes without it are not that format. */
const SIGNED = new Set(['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tif', 'tiff', 'webp', 'psd', 'emf', 'svm', 'ras', 'hwp']);
/** Legacy formats often served as RTF, HTML or plain text under their name. */
const RENAMED_TEXT = new Set(['doc', 'dot', 'xls', 'xlt', 'xlw']);
/** Formats whose content is text, so LibreOffice's plain-text import is a faithful rendering. */
const PLAIN_TEXT = new Set(['txt', 'csv', 'bib', 'ltx', 'xml', 'html', 'htm', 'xhtml']);

const isZip = (b: Buffer) => b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
const isOle = (b: Buffer) => b.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]));
const utf16 = (s: string) => Buffer.from(s, 'utf16le');

const LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** Names from the local headers, for a ZIP cut short before its central directory. */
function localNames(b: Buffer): string[] {
  const names: string[] = [];
  for (let p = 0; p + 30 <= b.length && b.readUInt32LE(p) === 0x04034b50 && names.length < 64; ) {
    const nameLen = b.readUInt16LE(p + 26);
    names.push(b.subarray(p + 30, p + 30 + nameLen).toString('utf8'));
    const data = p + 30 + nameLen + b.readUInt16LE(p + 28);
    // Sizes written after the data (flag bit 3): the next header is found by its signature.
    p = b.readUInt16LE(p + 6) & 0x08 ? b.indexOf(LOCAL_HEADER, data) : data + b.readUInt32LE(p + 18);
    if (p < 0) break;
  }
  return names;
}

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
  return localNames(b);
}

/** Media types an ODF, StarOffice XML or EPUB container names in its `mimetype` entry. */
const CONTAINER_TYPES: Record<string, string> = Object.fromEntries(
  Object.entries(MEDIA_TYPES).filter(([mime]) => /^application\/(vnd\.oasis\.opendocument\.|vnd\.sun\.xml\.|epub\+zip$)/.test(mime)),
);

function zipKind(b: Buffer): string | undefined {
  // ODF and EPUB store an uncompressed `mimetype` entry first.
  if (b.subarray(30, 38).toString('latin1') === 'mimetype') {
    const start = 30 + b.readUInt16LE(26) + b.readUInt16LE(28);
    const mime = b.subarray(start, start + b.readUInt32LE(18)).toString('latin1').trim();
    if (CONTAINER_TYPES[mime]) return CONTAINER_TYPES[mime];
  }
  const names = zipNames(b);
  if (names.some((n) => n.startsWith('word/'))) return 'docx';
  if (names.some((n) => n.startsWith('xl/'))) return names.includes('xl/workbook.bin') ? 'xlsb' : 'xlsx';
  if (names.some((n) => n.startsWith('ppt/'))) return 'pptx';
  if (names.some((n) => n.startsWith('visio/'))) return 'vsdx';
  if (names.includes('mimetype') && names.includes('content.xml')) return 'odt';
  // iWork 2013+ (protobuf archives) and iWork '09 (XML); LibreOffice tells the three apart itself.
  if (names.includes('Index/Document.iwa')) {
    if (names.some((n) => /^Index\/(Master)?Slide/.test(n))) return 'key';
    if (names.some((n) => n.startsWith('Index/CalculationEngine') || n.startsWith('Index/Tables/'))) return 'numbers';
    return 'pages';
  }
  if (names.some((n) => /^index\.apxl(\.gz)?$/.test(n))) return 'key';
  if (names.some((n) => /^index\.xml(\.gz)?$/.test(n))) return 'pages';
  if (names.some((n) => n.startsWith('content/riffData.cdr') || n === 'content/root.dat')) return 'cdr';
  return undefined;
}

function oleKind(b: Buffer): string | undefined {
  if (b.includes(utf16('EncryptionInfo'))) return 'encrypted';
  if (b.includes(utf16('WordDocument'))) return 'doc';
  if (b.includes(utf16('Workbook')) || b.includes(utf16('Book'))) return 'xls';
  if (b.includes(utf16('PowerPoint Document'))) return 'ppt';
  if (b.includes(utf16('VisioDocument'))) return 'vsd';
  if (b.includes(utf16('Quill'))) return 'pub';
  if (b.includes(utf16('StarWriterDocument'))) return 'sdw';
  if (b.includes(utf16('StarCalcDocument'))) return 'sdc';
  if (b.includes(utf16('StarDrawDocument3'))) return 'sdd';
  if (b.includes(utf16('MatOST'))) return 'wps';
  return undefined;
}

/** Plain text: no NUL bytes in the head (UTF-16 text starts with a BOM). */
export function isText(data: Uint8Array): boolean {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff)) return true;
  return !b.subarray(0, 8192).includes(0);
}

/** Text formats told apart by their first lines. */
const TEXT_SIGNS: [string, RegExp][] = [
  ['rtf', /^\{\\rtf/],
  ['eps', /^%!/],
  ['xpm', /^(\/\*\s*XPM\s*\*\/|! XPM2)/],
  ['xbm', /^#define\s+\S*width\s+\d+[\s\S]*_bits\s*\[\s*\]/],
  ['dxf', /^(999\r?\n[^\n]*\n\s*)?0\r?\nSECTION\r?\n/],
  ['slk', /^ID;P/],
  ['dif', /^TABLE\r?\n0,1\r?\n/],
  ['602', /^[@.]CT\s+\d/],
  ['cgm', /^BEGMF\b/i],
  ['ltx', /^(%[^\n]*\n\s*)*\\(documentclass|documentstyle)\b/],
  ['bib', /^(%[^\n]*\n\s*)*@(article|book|inproceedings|misc|incollection|techreport|phdthesis|mastersthesis|string|preamble)\s*\{/i],
];

function textKind(b: Buffer): string {
  const head = b.subarray(0, 8192).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  const lower = head.toLowerCase();
  if (lower.startsWith('<')) {
    if (lower.includes('<svg')) return 'svg';
    if (lower.includes('<html') || lower.startsWith('<!doctype html')) return 'html';
    const fod = /office:mimetype="application\/vnd\.oasis\.opendocument\.(text|spreadsheet|presentation|graphics)"/.exec(head);
    if (fod) return { text: 'fodt', spreadsheet: 'fods', presentation: 'fodp', graphics: 'fodg' }[fod[1]!]!;
    const uof = /uof:mimetype="vnd\.uof\.(text|spreadsheet|presentation)"/.exec(head);
    if (uof) return { text: 'uot', spreadsheet: 'uos', presentation: 'uop' }[uof[1]!]!;
    if (/<(\w+:)?math[\s>]/.test(head)) return 'mml';
    if (/<VisioDocument[\s>]/.test(head)) return 'vdx';
    if (/<abiword[\s>]/.test(head)) return 'abw';
    if (lower.startsWith('<?xml')) return 'xml';
    return 'html';
  }
  for (const [ext, re] of TEXT_SIGNS) if (re.test(head)) return ext;
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
  const signed = signatureFormat(b);
  if (signed) return signed;
  if (isText(b)) return textKind(b);
  return undefined;
}

/** Whether LibreOffice may read the input of this format with its plain-text import. */
export function plainTextAllowed(ext: string, data: Uint8Array): boolean {
  return PLAIN_TEXT.has(ext) || (RENAMED_TEXT.has(ext) && isText(data));
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
    // Word and Excel files are often RTF, HTML or old binary formats renamed; accept those, not noise.
    const legacy = hasSignature('doc', b) || hasSignature('xls', b);
    if (!(legacy || (isText(b) && ['rtf', 'html', 'xml', 'txt'].includes(textKind(b))))) throw bad();
    return;
  }
  if (SIGNED.has(ext) && !hasSignature(ext, b)) throw bad();
  if (TEXT.has(ext)) {
    if (!isText(b)) throw bad();
    if (ext === 'rtf' && textKind(b) !== 'rtf') throw bad();
    if (ext === 'svg' && textKind(b) !== 'svg') throw bad();
  }
}
