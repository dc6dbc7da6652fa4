/**
 * Final step of every merge (spec §4.6 `metadata`, `pdfa`, `pdfua`): Unicode document
 * information in the Info dictionary and the same values in an XMP packet, with the PDF/A
 * identification (`pdfaid`) and, for tagged output, the PDF/UA one (`pdfuaid`). PDF/A requires
 * Info and XMP to agree, so both are written here from one set of values.
 */
import { PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import type { FinalizeOptions, PdfAPart } from './types.js';

/** The Producer written into every merged PDF. */
export const PRODUCER = 'Content Intelligence API (pdf-lib)';

function xml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Seconds precision, UTC: the Info dictionary cannot hold more, and both must match. */
function xmpDate(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Builds the XMP packet for the given values. */
export function buildXmp(v: { title?: string; author?: string; subject?: string; keywords?: string; producer: string; creatorTool: string; created: Date; modified: Date; pdfa?: PdfAPart; pdfua?: boolean }): string {
  const lines = [
    '<dc:format>application/pdf</dc:format>',
    v.title !== undefined ? `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xml(v.title)}</rdf:li></rdf:Alt></dc:title>` : '',
    v.author !== undefined ? `<dc:creator><rdf:Seq><rdf:li>${xml(v.author)}</rdf:li></rdf:Seq></dc:creator>` : '',
    v.subject !== undefined ? `<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${xml(v.subject)}</rdf:li></rdf:Alt></dc:description>` : '',
    v.keywords !== undefined ? `<pdf:Keywords>${xml(v.keywords)}</pdf:Keywords>` : '',
    `<pdf:Producer>${xml(v.producer)}</pdf:Producer>`,
    `<xmp:CreatorTool>${xml(v.creatorTool)}</xmp:CreatorTool>`,
    `<xmp:CreateDate>${xmpDate(v.created)}</xmp:CreateDate>`,
    `<xmp:ModifyDate>${xmpDate(v.modified)}</xmp:ModifyDate>`,
    `<xmp:MetadataDate>${xmpDate(v.modified)}</xmp:MetadataDate>`,
    v.pdfa ? `<pdfaid:part>${v.pdfa}</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance>` : '',
    v.pdfua ? '<pdfuaid:part>1</pdfuaid:part>' : '',
  ].filter(Boolean);
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/">
${lines.join('\n')}
</rdf:Description>
</rdf:RDF>
</x:xmpmeta>
${' '.repeat(1024)}
<?xpacket end="w"?>`;
}

/**
 * Writes metadata and XMP. With `pdfua` (spec §4.6 "attempt PDF/UA compliance"): a title shown
 * in the window bar (`DisplayDocTitle`) and a document language (`opts.lang`, else `en`)
 * always, since they cost nothing and help any reader; `MarkInfo` `Marked` and `pdfuaid:part 1`
 * only when the document carries a structure tree (after ghostscript's PDF/A rewrite it does not).
 */
export async function finalize(pdf: Uint8Array, opts: FinalizeOptions): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const m = opts.metadata ?? {};
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const created = doc.getCreationDate() ?? now;
  const title = m.Title ?? doc.getTitle() ?? (opts.pdfua ? 'Merged document' : undefined);
  const author = m.Author ?? doc.getAuthor();
  const subject = m.Subject ?? doc.getSubject();
  const keywords = m.Keywords ?? doc.getKeywords();
  const creatorTool = doc.getCreator() ?? PRODUCER;
  const tagged = doc.catalog.has(PDFName.of('StructTreeRoot'));
  const pdfua = Boolean(opts.pdfua && tagged);

  // pdf-lib's setters write UTF-16BE hex strings, so non-ASCII text survives (ghostscript's doesn't).
  if (title !== undefined) doc.setTitle(title, { showInWindowTitleBar: Boolean(opts.pdfua) });
  if (author !== undefined) doc.setAuthor(author);
  if (subject !== undefined) doc.setSubject(subject);
  if (keywords !== undefined) (doc as unknown as { getInfoDict(): import('pdf-lib').PDFDict }).getInfoDict().set(PDFName.of('Keywords'), PDFHexString.fromText(keywords));
  doc.setCreator(creatorTool);
  doc.setProducer(PRODUCER);
  doc.setCreationDate(created);
  doc.setModificationDate(now);
  if (opts.pdfua && !doc.catalog.has(PDFName.of('Lang'))) doc.catalog.set(PDFName.of('Lang'), PDFString.of(opts.lang ?? 'en'));
  if (pdfua) doc.catalog.set(PDFName.of('MarkInfo'), doc.context.obj({ Marked: true }));

  const packet = buildXmp({ title, author, subject, keywords, producer: PRODUCER, creatorTool, created, modified: now, pdfa: opts.pdfa, pdfua });
  // PDF/A-1 forbids filters on the metadata stream: store it uncompressed.
  const stream = doc.context.stream(new TextEncoder().encode(packet), { Type: 'Metadata', Subtype: 'XML' });
  doc.catalog.set(PDFName.of('Metadata'), doc.context.register(stream));
  // PDF/A-1 forbids object and cross-reference streams; keep every PDF/A output classic.
  return doc.save({ useObjectStreams: !opts.pdfa, updateFieldAppearances: false });
}
