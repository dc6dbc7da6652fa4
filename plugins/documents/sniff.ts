/**
 * Type checks on the input bytes (spec §4.6: 400 for an unsupported or unrecognisable format).
 * LibreOffice "converts" random bytes named `.docx` into a page of garbage, so the bytes must
 * agree with the claimed format before a worker sees them; for base64 input without a type
 * hint, the format is taken from the bytes alone. What no signature here names is left to
 * LibreOffice's own type detection (the office engine refuses its plain-text fallback).
 * The input is a file and is never held whole (issue 24): the checks read its start and end
 * (`FileSample`), a ZIP's directory, and search an OLE container's bytes a chunk at a time.
 */
import { open } from 'node:fs/promises';
import { InputError, zipEntryNamesOfFile } from '../../core/sdk.js';
import { MEDIA_TYPES } from './formats.js';
import { hasSignature, signatureFormat } from './signatures.js';
import { readAt, indexIn, scanFor, type FileSample } from './sample.js';

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

/** Names from the local headers, for a ZIP cut short before its central directory (the first 64). */
async function localNames(file: string): Promise<string[]> {
  const names: string[] = [];
  const fh = await open(file, 'r');
  try {
    for (let p = 0; names.length < 64; ) {
      const h = await readAt(fh, p, 30);
      if (h.length < 30 || h.readUInt32LE(0) !== 0x04034b50) break;
      const nameLen = h.readUInt16LE(26);
      names.push((await readAt(fh, p + 30, nameLen)).toString('utf8'));
      const data = p + 30 + nameLen + h.readUInt16LE(28);
      // Sizes written after the data (flag bit 3): the next header is found by its signature.
      p = h.readUInt16LE(6) & 0x08 ? await indexIn(file, LOCAL_HEADER, data) : data + h.readUInt32LE(18);
      if (p < 0) break;
    }
  } finally {
    await fh.close();
  }
  return names;
}

/** Names of the entries in a ZIP's central directory (enough to tell OOXML kinds apart). */
async function zipNames(file: string): Promise<string[]> {
  return (await zipEntryNamesOfFile(file)) ?? localNames(file);
}

/** Media types an ODF, StarOffice XML or EPUB container names in its `mimetype` entry. */
const CONTAINER_TYPES: Record<string, string> = Object.fromEntries(
  Object.entries(MEDIA_TYPES).filter(([mime]) => /^application\/(vnd\.oasis\.opendocument\.|vnd\.sun\.xml\.|epub\+zip$)/.test(mime)),
);

async function zipKind(s: FileSample): Promise<string | undefined> {
  const b = s.head;
  // ODF and EPUB store an uncompressed `mimetype` entry first (a media type is short: the head holds it).
  if (b.subarray(30, 38).toString('latin1') === 'mimetype') {
    const start = 30 + b.readUInt16LE(26) + b.readUInt16LE(28);
    const mime = b.subarray(start, start + b.readUInt32LE(18)).toString('latin1').trim();
    if (CONTAINER_TYPES[mime]) return CONTAINER_TYPES[mime];
  }
  const names = await zipNames(s.file);
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

/**
 * Stream names that tell OLE containers apart, most telling first (the first found anywhere in
 * the file names it); `Workbook` and `Book` both mean Excel.
 */
const OLE_STREAMS: [string, string][] = [
  ['EncryptionInfo', 'encrypted'],
  ['WordDocument', 'doc'],
  ['Workbook', 'xls'],
  ['Book', 'xls'],
  ['PowerPoint Document', 'ppt'],
  ['VisioDocument', 'vsd'],
  ['Quill', 'pub'],
  ['StarWriterDocument', 'sdw'],
  ['StarCalcDocument', 'sdc'],
  ['StarDrawDocument3', 'sdd'],
  ['MatOST', 'wps'],
];
const OLE_NEEDLES = OLE_STREAMS.map(([name]) => utf16(name));

/** The kind an OLE container's stream names show; the file is searched, never held, and once per sample. */
function oleKind(s: FileSample): Promise<string | undefined> {
  const known = oleKinds.get(s);
  if (known) return known;
  // An encrypted file is known as soon as its marker is found; any other kind needs the whole search.
  const kind = scanFor(s.file, OLE_NEEDLES, (found) => found.has(0)).then((found) => {
    const first = OLE_STREAMS.findIndex((_, i) => found.has(i));
    return first < 0 ? undefined : OLE_STREAMS[first]![1];
  });
  oleKinds.set(s, kind);
  return kind;
}
const oleKinds = new WeakMap<FileSample, Promise<string | undefined>>();

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
export async function detectFormat(s: FileSample): Promise<string | undefined> {
  const b = s.head;
  if (s.size === 0) return undefined;
  if (b.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (isZip(b)) return zipKind(s);
  if (isOle(b)) return oleKind(s);
  const signed = signatureFormat(s.signed);
  if (signed) return signed;
  if (isText(b)) return textKind(b);
  return undefined;
}

/** Whether LibreOffice may read the input of this format with its plain-text import. */
export function plainTextAllowed(ext: string, s: FileSample): boolean {
  return PLAIN_TEXT.has(ext) || (RENAMED_TEXT.has(ext) && isText(s.head));
}

const PROTECTED = 'The file is password-protected; remove the password and retry.';

/**
 * Checks that the bytes can be what `ext` claims, for the families whose signature is certain;
 * other formats are left to LibreOffice's own detection. Throws `InputError` otherwise.
 */
export async function checkFormat(ext: string, s: FileSample): Promise<void> {
  const b = s.head;
  const bad = () => new InputError(`The file is not a valid .${ext} document.`);
  if (s.size === 0) throw new InputError("'file' is empty.");
  if (OOXML.has(ext)) {
    // An encrypted OOXML file is an OLE container holding `EncryptionInfo`.
    if (isOle(b) && (await oleKind(s)) === 'encrypted') throw new InputError(PROTECTED);
    if (!isZip(b)) throw bad();
    return;
  }
  if (ZIPPED.has(ext) && !isZip(b)) throw bad();
  if (OLE.has(ext)) {
    if (isOle(b)) {
      if ((await oleKind(s)) === 'encrypted') throw new InputError(PROTECTED);
      return;
    }
    // Word and Excel files are often RTF, HTML or old binary formats renamed; accept those, not noise.
    const legacy = hasSignature('doc', s.signed) || hasSignature('xls', s.signed);
    if (!(legacy || (isText(b) && ['rtf', 'html', 'xml', 'txt'].includes(textKind(b))))) throw bad();
    return;
  }
  if (SIGNED.has(ext) && !hasSignature(ext, s.signed)) throw bad();
  if (TEXT.has(ext)) {
    if (!isText(b)) throw bad();
    if (ext === 'rtf' && textKind(b) !== 'rtf') throw bad();
    if (ext === 'svg' && textKind(b) !== 'svg') throw bad();
  }
}
