/**
 * The formats convert-to-pdf accepts (spec §4.6, the list word for word) and the media types
 * that name them, for inputs whose URL has no usable extension.
 */

/** Every extension of spec §4.6, without the dot. */
export const SUPPORTED_EXTENSIONS: readonly string[] = (
  '123 602 abw bib bmp cdr cgm cmx csv cwk dbf dif doc docm docx dot dotm dotx dxf emf eps epub fodg fodp fods fodt fopd ' +
  'gif htm html hwp jpeg jpg key ltx lwp mcw met mml mw numbers odd odg odm odp ods odt otg oth otp ots ott pages pbm pcd ' +
  'pct pcx pdb pgm png pot potm potx ppm pps ppt pptm pptx psd psw pub pwp pxl ras rtf sda sdc sdd sdp sdw sgl slk smf stc ' +
  'std sti stw svg svm swf sxc sxd sxg sxi sxm sxw tga tif tiff txt uof uop uos uot vdx vor vsd vsdm vsdx webp wb2 wk1 wks ' +
  'wmf wpd wpg wps xbm xhtml xls xlsb xlsm xlsx xlt xltm xltx xlw xml xpm zabw'
).split(' ');

const SUPPORTED = new Set(SUPPORTED_EXTENSIONS);

/** True when `ext` (no dot, any case) is in the spec's list. */
export function isSupported(ext: string): boolean {
  return SUPPORTED.has(ext.toLowerCase());
}

/** Media type → extension, for `Content-Type` headers and `data:` URLs. */
export const MEDIA_TYPES: Record<string, string> = {
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.template': 'dotx',
  'application/vnd.ms-word.document.macroenabled.12': 'docm',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.ms-excel.sheet.macroenabled.12': 'xlsm',
  'application/vnd.ms-excel.sheet.binary.macroenabled.12': 'xlsb',
  'application/vnd.ms-powerpoint': 'ppt',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/vnd.ms-powerpoint.presentation.macroenabled.12': 'pptm',
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/vnd.oasis.opendocument.graphics': 'odg',
  'application/vnd.oasis.opendocument.text-template': 'ott',
  'application/vnd.oasis.opendocument.spreadsheet-template': 'ots',
  'application/vnd.oasis.opendocument.presentation-template': 'otp',
  'application/vnd.oasis.opendocument.graphics-template': 'otg',
  'application/vnd.oasis.opendocument.text-master': 'odm',
  'application/vnd.oasis.opendocument.text-web': 'oth',
  'application/vnd.sun.xml.writer': 'sxw',
  'application/vnd.sun.xml.writer.template': 'stw',
  'application/vnd.sun.xml.writer.global': 'sxg',
  'application/vnd.sun.xml.calc': 'sxc',
  'application/vnd.sun.xml.calc.template': 'stc',
  'application/vnd.sun.xml.impress': 'sxi',
  'application/vnd.sun.xml.impress.template': 'sti',
  'application/vnd.sun.xml.draw': 'sxd',
  'application/vnd.sun.xml.draw.template': 'std',
  'application/vnd.sun.xml.math': 'sxm',
  'application/vnd.visio': 'vsd',
  'application/vnd.ms-visio.drawing': 'vsdx',
  'application/vnd.ms-publisher': 'pub',
  'application/x-mspublisher': 'pub',
  'application/rtf': 'rtf',
  'text/rtf': 'rtf',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'text/html': 'html',
  'application/xhtml+xml': 'xhtml',
  'text/xml': 'xml',
  'application/xml': 'xml',
  'application/epub+zip': 'epub',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/bmp': 'bmp',
  'image/tiff': 'tiff',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'image/x-emf': 'emf',
  'image/x-wmf': 'wmf',
  'image/vnd.adobe.photoshop': 'psd',
  'application/postscript': 'eps',
  'application/x-abiword': 'abw',
  'application/vnd.apple.pages': 'pages',
  'application/vnd.apple.numbers': 'numbers',
  'application/vnd.apple.keynote': 'key',
  'application/x-hwp': 'hwp',
  'application/vnd.wordperfect': 'wpd',
  'image/x-portable-bitmap': 'pbm',
  'image/x-portable-graymap': 'pgm',
  'image/x-portable-pixmap': 'ppm',
  'image/x-xpixmap': 'xpm',
  'image/x-xbitmap': 'xbm',
  'image/x-pcx': 'pcx',
  'image/x-tga': 'tga',
  'image/x-cmu-raster': 'ras',
  'image/vnd.dxf': 'dxf',
  'image/x-coreldraw': 'cdr',
  'application/x-dbf': 'dbf',
  'application/x-123': '123',
  'application/vnd.lotus-1-2-3': '123',
  'application/vnd.ms-works': 'wps',
  'text/x-tex': 'ltx',
  'application/mathml+xml': 'mml',
};

/** The extension a media type names, if any (parameters such as `; charset=` ignored). */
export function extensionOfMediaType(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  return MEDIA_TYPES[contentType.split(';')[0]!.trim().toLowerCase()];
}
