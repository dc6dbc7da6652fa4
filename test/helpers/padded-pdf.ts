/** A small, valid PDF of any size, for tests of large request bodies whose file must still parse. */
import { pdfOfObjects } from './hand-pdf.js';

/** A one-page PDF titled `title` whose content stream is padded to about `bytes`. */
export function paddedPdf(title: string, bytes: number): Buffer {
  const text = `BT /F1 12 Tf 20 50 Td (${title}) Tj ET\n% ${'x'.repeat(bytes)}\n`;
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Title (${title}) /Author (Body test) >>`,
  ];
  return pdfOfObjects(objs, 6, 'latin1');
}
