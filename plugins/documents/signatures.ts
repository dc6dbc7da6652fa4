/**
 * Byte signatures of the binary formats of spec §4.6 that are certain enough to name a file by
 * (published magic numbers and header layouts). Formats with no dependable signature here
 * (CGM, MET, Quattro Pro, the MWAW family, Lotus Word Pro…) are left to LibreOffice's own type
 * detection, which the office engine runs on every input it gets without an extension.
 */

type Test = (b: Buffer) => boolean;

const ascii = (b: Buffer, at: number, s: string) => b.length >= at + s.length && b.toString('latin1', at, at + s.length) === s;
const u16 = (b: Buffer, at: number) => (b.length >= at + 2 ? b.readUInt16LE(at) : -1);
const u32 = (b: Buffer, at: number) => (b.length >= at + 4 ? b.readUInt32LE(at) : -1);
const u16be = (b: Buffer, at: number) => (b.length >= at + 2 ? b.readUInt16BE(at) : -1);

/** Lotus BOF record: opcode 0, then its length and the file version. */
const lotus = (len: number, versions: number[]): Test => (b) => u16(b, 0) === 0 && u16(b, 2) === len && versions.includes(u16(b, 4));

/** dBase: version byte, a plausible YYMMDD, and a header of 32-byte field descriptors ending in 0x0D. */
const dbf: Test = (b) => {
  if (b.length < 66 || ![0x02, 0x03, 0x04, 0x05, 0x30, 0x31, 0x43, 0x63, 0x83, 0x8b, 0xcb, 0xf5, 0xfb].includes(b[0]!)) return false;
  const [month, day] = [b[2]!, b[3]!];
  const header = u16(b, 8);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && header >= 65 && header <= b.length && b[header - 1] === 0x0d && u16(b, 10) > 0;
};

/** Netpbm: `P1`…`P6`, then width and height (comments allowed), ASCII or raw alike. */
function netpbm(b: Buffer): string | undefined {
  const m = /^P([1-6])\s+(?:#[^\n]*\n\s*)*\d+\s+\d+\s/.exec(b.toString('latin1', 0, 512));
  return m ? (['pbm', 'pgm', 'ppm'] as const)[(Number(m[1]) - 1) % 3] : undefined;
}

/** Signatures in the order they are tried; the first match names the file. */
const SIGNATURES: [string, Test][] = [
  ['png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['jpg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['gif', (b) => ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a')],
  // `BM` plus one of the known DIB header sizes (plain text may start with "BM").
  ['bmp', (b) => ascii(b, 0, 'BM') && [12, 40, 52, 56, 64, 108, 124].includes(u32(b, 14))],
  ['tiff', (b) => ascii(b, 0, 'II*\0') || ascii(b, 0, 'MM\0*')],
  ['webp', (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP')],
  ['psd', (b) => ascii(b, 0, '8BPS')],
  ['emf', (b) => u32(b, 0) === 1 && ascii(b, 40, ' EMF')],
  // Placeable (Aldus) header, or the standard one: type 1|2, 9-word header, version 1 or 3.
  ['wmf', (b) => u32(b, 0) === 0x9ac6cdd7 || ([1, 2].includes(u16(b, 0)) && u16(b, 2) === 9 && [0x100, 0x300].includes(u16(b, 4)))],
  ['svm', (b) => ascii(b, 0, 'VCLMTF')],
  ['ras', (b) => u32(b, 0) === 0x956aa659],
  ['pcd', (b) => ascii(b, 2048, 'PCD_IPI')],
  // Mac PICT after its 512-byte header: the version opcode follows size and frame.
  ['pct', (b) => (u16be(b, 522) === 0x0011 && u16be(b, 524) === 0x02ff) || u16be(b, 522) === 0x1101],
  ['tga', (b) => b.length > 44 && b.toString('latin1', b.length - 18, b.length - 2) === 'TRUEVISION-XFILE'],
  ['pcx', (b) => b.length >= 128 && b[0] === 0x0a && [0, 2, 3, 4, 5].includes(b[1]!) && b[2]! <= 1 && [1, 2, 4, 8].includes(b[3]!)],
  // EPS with a binary (DOS) preview header.
  ['eps', (b) => u32(b, 0) === 0xc6d3d0c5],
  ['dxf', (b) => ascii(b, 0, 'AutoCAD Binary DXF')],
  ['cdr', (b) => ascii(b, 0, 'RIFF') && /^cdr/i.test(b.toString('latin1', 8, 11))],
  ['cmx', (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'CMX1')],
  // WordPerfect family: file type 0x16 is a WPG graphic, the rest documents.
  ['wpg', (b) => ascii(b, 0, '\xffWPC') && b[9] === 0x16],
  ['wpd', (b) => ascii(b, 0, '\xffWPC')],
  ['hwp', (b) => ascii(b, 0, 'HWP Document File')],
  ['wks', (b) => b.subarray(0, 8).equals(Buffer.from([0xff, 0x00, 0x02, 0x00, 0x04, 0x04, 0x05, 0x54]))],
  ['wks', lotus(2, [0x0404])],
  ['wk1', lotus(2, [0x0405, 0x0406])],
  ['123', lotus(0x1a, [0x1000, 0x1002, 0x1003, 0x1005])],
  ['cwk', (b) => ascii(b, 4, 'BOBO')],
  ['swf', (b) => ['FWS', 'CWS', 'ZWS'].includes(b.toString('latin1', 0, 3))],
  ['pdb', (b) => ['TEXtREAd', 'DataPlkr', 'PNRdPPrs', 'TEXtTlDc', 'zTXTGPlm'].includes(b.toString('latin1', 60, 68))],
  // Old Word and Excel files without an OLE container (Word 2, Word for DOS, raw BIFF).
  ['doc', (b) => (b[0] === 0xdb && b[1] === 0xa5) || u32(b, 0) === 0x0000be31],
  ['xls', (b) => b[0] === 0x09 && [0x00, 0x02, 0x04, 0x08].includes(b[1]!) && b[3] === 0x00],
  ['dbf', dbf],
];

/** The format a binary signature names, or undefined. */
export function signatureFormat(b: Buffer): string | undefined {
  const pnm = netpbm(b);
  if (pnm) return pnm;
  for (const [ext, test] of SIGNATURES) if (test(b)) return ext;
  return undefined;
}

/** True when the bytes carry the signature of `ext` (for the formats listed here). */
export function hasSignature(ext: string, b: Buffer): boolean | undefined {
  const name = ({ jpeg: 'jpg', tif: 'tiff' } as Record<string, string>)[ext] ?? ext;
  if (['pbm', 'pgm', 'ppm'].includes(name)) return netpbm(b) === name;
  const tests = SIGNATURES.filter(([e]) => e === name).map(([, t]) => t);
  return tests.length ? tests.some((t) => t(b)) : undefined;
}
