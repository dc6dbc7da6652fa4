/**
 * PDF metadata jobs (issue 28), kept on the direct lane like the other PDF tools: read the
 * document information (and what poppler and the XMP packet say about the file) of one or more
 * PDFs, or write Title/Author/… into them with the XMP packet kept in step. Priced per file.
 */
import { Type, defineCapability, perUnit, type Static } from '../sdk.js';
import { examplePdfBase64 } from './extract.js';

/** Credits per PDF read (issue 28: priced). */
export const READ_PDF_METADATA_CREDITS = 5;
/** Credits per PDF written. */
export const WRITE_PDF_METADATA_CREDITS = 20;
/** Most PDFs one call takes. */
export const PDF_METADATA_MAX_FILES = 20;

const InputMethod = Type.Union([Type.Literal('url'), Type.Literal('base64')], {
  description: 'How `files` are given: `url` (fetched by the service through its SSRF guard) or `base64` (the content itself; a data: URL is accepted).',
});
const Files = Type.Array(Type.String({ minLength: 1, description: 'A PDF URL or base64 content.' }), {
  minItems: 1,
  maxItems: PDF_METADATA_MAX_FILES,
  description: `The PDFs (1 to ${PDF_METADATA_MAX_FILES}).`,
});
const Text = (d: string) => Type.Optional(Type.String({ maxLength: 2000, description: d }));

/** The writable document information fields. */
export const PdfInfoFields = Type.Object(
  {
    Title: Text('Document title (XMP dc:title).'),
    Author: Text('Author (XMP dc:creator).'),
    Subject: Text('Subject (XMP dc:description).'),
    Keywords: Text('Keywords (XMP pdf:Keywords).'),
    Creator: Text('Application that created the original document (XMP xmp:CreatorTool).'),
    Producer: Text('Application that produced the PDF (XMP pdf:Producer).'),
  },
  { additionalProperties: false, description: 'Fields to set; fields left out keep their value. Unicode is kept.' },
);

/** Input of read-pdf-metadata. */
export const ReadPdfMetadataInput = Type.Object({ inputMethod: InputMethod, files: Files });
/** Input of write-pdf-metadata. */
export const WritePdfMetadataInput = Type.Object({ inputMethod: InputMethod, files: Files, metadata: PdfInfoFields });

const Nullable = (d: string) => Type.Union([Type.String(), Type.Null()], { description: d });

/** What read-pdf-metadata says about one PDF. */
export const PdfMetadataEntry = Type.Object({
  Title: Nullable('Title, or null.'),
  Author: Nullable('Author, or null.'),
  Subject: Nullable('Subject, or null.'),
  Keywords: Nullable('Keywords, or null.'),
  Creator: Nullable('Creating application, or null.'),
  Producer: Nullable('Producing application, or null.'),
  CreationDate: Nullable('Creation date as ISO 8601, or null.'),
  ModDate: Nullable('Last modification date as ISO 8601, or null.'),
  pageCount: Type.Integer({ description: 'Pages in the document.' }),
  pdfVersion: Type.String({ description: 'PDF version from the header, e.g. `1.7`.' }),
  encrypted: Type.Boolean({ description: 'True when the file is encrypted (it opened without a user password).' }),
  tagged: Type.Boolean({ description: 'True when the document is tagged (MarkInfo /Marked).' }),
  pdfaPart: Type.Union([Type.Integer(), Type.Null()], { description: 'PDF/A part claimed in the XMP packet (1, 2, 3, 4), or null.' }),
  pdfaConformance: Type.Union([Type.String(), Type.Null()], { description: 'PDF/A conformance level claimed (A, B, U), or null.' }),
});

const isHttp = (v: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(v.trim()).protocol);
  } catch {
    return false;
  }
};
const urlCheck = (i: { inputMethod: string; files: string[] }) =>
  i.inputMethod === 'url' && !i.files.every(isHttp) ? "Every entry of 'files' must be an http or https URL when 'inputMethod' is 'url'." : undefined;

const messages = {
  inputMethod: "'inputMethod' parameter is required and must be 'url' or 'base64'.",
  files: `'files' parameter is required and must be an array of 1 to ${PDF_METADATA_MAX_FILES} non-empty strings.`,
};

/** `read_pdf_metadata`: the direct-lane metadata reader, served by the `pdf_metadata` plugin. */
export const readPdfMetadata = defineCapability({
  id: 'read_pdf_metadata',
  title: 'Read PDF metadata',
  summary: `Document information of PDFs (Title, Author, dates…), page count, PDF version, encryption, tagging and PDF/A part. ${READ_PDF_METADATA_CREDITS} credits per file.`,
  tags: ['pdf', 'metadata', 'info', 'xmp', 'pdfa'],
  visibility: 'legacy',
  input: ReadPdfMetadataInput,
  output: Type.Object({ files: Type.Array(PdfMetadataEntry, { description: 'One entry per input file, in order.' }) }),
  cost: perUnit<Static<typeof ReadPdfMetadataInput>>({ unit: 'files', credits: READ_PDF_METADATA_CREDITS, max: (i) => i.files?.length ?? PDF_METADATA_MAX_FILES, note: `${READ_PDF_METADATA_CREDITS} credits per file` }),
  messages,
  validate: urlCheck,
  examples: [{ title: 'Metadata of a one-page PDF', input: { inputMethod: 'base64', files: [examplePdfBase64()] } }],
});

/** `write_pdf_metadata`: the direct-lane metadata writer, served by the `pdf_metadata` plugin. */
export const writePdfMetadata = defineCapability({
  id: 'write_pdf_metadata',
  title: 'Write PDF metadata',
  summary: `Set Title, Author, Subject, Keywords, Creator or Producer of PDFs, XMP kept in step, the rest of each document untouched; returns temporary download links. ${WRITE_PDF_METADATA_CREDITS} credits per file.`,
  tags: ['pdf', 'metadata', 'info', 'xmp', 'title', 'author'],
  visibility: 'legacy',
  input: WritePdfMetadataInput,
  output: Type.Object({
    url: Type.Optional(Type.String({ description: 'Download link of the PDF (one input file), valid 24 hours.' })),
    urls: Type.Optional(Type.Array(Type.String(), { description: 'Download links of the PDFs in input order (several input files), valid 24 hours.' })),
  }),
  cost: perUnit<Static<typeof WritePdfMetadataInput>>({ unit: 'files', credits: WRITE_PDF_METADATA_CREDITS, max: (i) => i.files?.length ?? PDF_METADATA_MAX_FILES, note: `${WRITE_PDF_METADATA_CREDITS} credits per file` }),
  messages: { ...messages, metadata: "'metadata' parameter is required and must be an object with string fields among Title, Author, Subject, Keywords, Creator and Producer." },
  validate: (i: Static<typeof WritePdfMetadataInput>) =>
    urlCheck(i) ?? (Object.values(i.metadata).some((v) => v !== undefined) ? undefined : "'metadata' must set at least one of Title, Author, Subject, Keywords, Creator or Producer."),
  // The schema alone admits an empty `metadata`, which `validate` refuses: the example shows (and the
  // scaffold reuses) an input that passes both.
  examples: [{ title: 'Title and author of a one-page PDF', input: { inputMethod: 'base64', files: [examplePdfBase64()], metadata: { Title: 'Quarterly report', Author: 'Jane Example' } } }],
});

export default [readPdfMetadata, writePdfMetadata];
