/**
 * What an input is: a PDF (read with poppler), an image (OCR), plain text (as is), or a document
 * LibreOffice turns into PDF first — any format convert-to-pdf accepts (spec §4.6 list).
 */
import { DOCUMENT_MEDIA_TYPES, InputError, inputHead } from '../../core/sdk.js';
import { type LoadedInput } from '../../core/sdk.js';

/** Spec §4.6: every extension convert-to-pdf accepts (the office route of this lane). */
export const OFFICE_EXTENSIONS: readonly string[] = (
  '123 602 abw bib bmp cdr cgm cmx csv cwk dbf dif doc docm docx dot dotm dotx dxf emf eps epub fodg fodp fods fodt fopd ' +
  'gif htm html hwp jpeg jpg key ltx lwp mcw met mml mw numbers odd odg odm odp ods odt otg oth otp ots ott pages pbm pcd ' +
  'pct pcx pdb pgm png pot potm potx ppm pps ppt pptm pptx psd psw pub pwp pxl ras rtf sda sdc sdd sdp sdw sgl slk smf stc ' +
  'std sti stw svg svm swf sxc sxd sxg sxi sxm sxw tga tif tiff txt uof uop uos uot vdx vor vsd vsdm vsdx webp wb2 wk1 wks ' +
  'wmf wpd wpg wps xbm xhtml xls xlsb xlsm xlsx xlt xltm xltx xlw xml xpm zabw'
).split(' ');

/** Images Tesseract reads directly (no LibreOffice round trip). */
const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tif', 'tiff', 'webp', 'pbm', 'pgm', 'ppm']);

const MEDIA_TYPES: Record<string, string> = {
  ...DOCUMENT_MEDIA_TYPES,
  'text/html': 'html',
  'text/csv': 'csv',
  'text/plain': 'txt',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/bmp': 'bmp',
  'image/tiff': 'tiff',
  'image/webp': 'webp',
};

/** How an input is read. */
export type Route = { kind: 'pdf' } | { kind: 'image'; ext: string } | { kind: 'text' } | { kind: 'office'; ext: string | null };

const startsWith = (d: Buffer, sig: string) => d.subarray(0, sig.length).toString('latin1') === sig;

/** Magic numbers of the formats the bytes alone settle. */
function sniff(d: Buffer): string | undefined {
  if (d.indexOf('%PDF-') >= 0 && d.indexOf('%PDF-') < 1024) return 'pdf';
  if (startsWith(d, '\x89PNG')) return 'png';
  if (startsWith(d, '\xff\xd8\xff')) return 'jpg';
  if (startsWith(d, 'GIF8')) return 'gif';
  if (startsWith(d, 'II*\x00') || startsWith(d, 'MM\x00*')) return 'tiff';
  if (startsWith(d, 'RIFF') && d.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  if (startsWith(d, 'BM')) return 'bmp';
  if (startsWith(d, '{\\rtf')) return 'rtf';
  if (startsWith(d, 'PK\x03\x04')) {
    const head = d.subarray(0, Math.min(d.length, 64 * 1024)).toString('latin1');
    if (head.includes('word/')) return 'docx';
    if (head.includes('xl/')) return 'xlsx';
    if (head.includes('ppt/')) return 'pptx';
    const odf = /mimetypeapplication\/vnd\.oasis\.opendocument\.(text|spreadsheet|presentation|graphics)/.exec(head);
    if (odf) return { text: 'odt', spreadsheet: 'ods', presentation: 'odp', graphics: 'odg' }[odf[1] as 'text'];
  }
  return undefined;
}

/** True when the bytes read as UTF-8 text without control characters (plain text, CSV, markdown). */
function isText(d: Buffer): boolean {
  const head = d.subarray(0, 64 * 1024);
  if (head.includes(0)) return false;
  const s = head.toString('utf8');
  const bad = (s.match(/[\x00-\x08\x0e-\x1f\ufffd]/g) ?? []).length;
  return bad <= Math.max(1, s.length / 1000);
}

/** Decides how to read `input`; `hint` is the caller's `fileExtension`. */
export function routeOf(input: LoadedInput, hint?: string): Route {
  // Signatures and the text check read the first 64 KB at most: a large body's file is not read whole here.
  const head = inputHead(input);
  const sniffed = sniff(head);
  const ext = (hint?.replace(/^\./, '').toLowerCase() || undefined) ?? sniffed ?? input.pathExtension ?? MEDIA_TYPES[input.contentType?.toLowerCase() ?? ''];
  const name = ext === 'jpeg' ? 'jpg' : ext;
  if (sniffed === 'pdf' || name === 'pdf') {
    if (sniffed !== 'pdf') throw new InputError('The file is not a PDF although its extension says so.');
    return { kind: 'pdf' };
  }
  if (name && IMAGE_EXTENSIONS.has(name) && sniffed && IMAGE_EXTENSIONS.has(sniffed)) return { kind: 'image', ext: sniffed };
  if ((name === 'txt' || name === 'md' || name === 'csv' || name === undefined) && isText(head) && !/^\s*</.test(head.subarray(0, 512).toString('utf8'))) {
    return name === 'csv' ? { kind: 'office', ext: 'csv' } : { kind: 'text' };
  }
  if (name && OFFICE_EXTENSIONS.includes(name)) return { kind: 'office', ext: name };
  if (name && /^[a-z0-9]{1,5}$/.test(name) && name !== input.pathExtension) throw new InputError(`Unsupported file format '.${name}'.`);
  // Unknown extension: LibreOffice's type detection decides, within the spec §4.6 list.
  return { kind: 'office', ext: null };
}
