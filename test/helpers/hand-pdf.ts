/** Hand-built PDFs for tests: numbered objects, a cross-reference table and a trailer. */

/**
 * A PDF of `objs` (object 1 the catalog, numbered in order), whose trailer names object `info`
 * (1-based) as its /Info; `encoding` is how the text becomes bytes (offsets are counted in UTF-8).
 */
export function pdfOfObjects(objs: string[], info: number, encoding: BufferEncoding = 'utf8'): Buffer {
  let pdf = '%PDF-1.7\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(Buffer.byteLength(pdf));
    pdf += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(pdf);
  pdf += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R /Info ${info} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, encoding);
}
