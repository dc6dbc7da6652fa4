/**
 * Document capabilities kept on the direct lane (spec §4.6, §9.1: `visibility: 'legacy'`),
 * served by the managed `documents` plugin. Costs: 50 credits per started 100 MB of output PDF
 * (spec §8.1), so any successful conversion or merge costs at least 50.
 */
import { Type, defineCapability, perOutputMb, flat, type Static } from '../sdk.js';

const InputMethod = Type.Union([Type.Literal('url'), Type.Literal('base64')], {
  description: 'How `file` / `files` are given: `url` (fetched by the service) or `base64` (the content itself).',
});

/** `{ url }`: a temporary signed download URL (spec §4.6, retained 24 hours per §8.2). */
export const PdfUrlOutput = Type.Object(
  { url: Type.String({ description: 'Temporary download URL of the PDF, retained 24 hours.' }) },
  { description: 'Where to download the produced PDF.' },
);

/** Input of convert-to-pdf (spec §4.6). */
export const ConvertInput = Type.Object({
  inputMethod: InputMethod,
  file: Type.String({
    minLength: 1,
    description: 'URL of the document (its type is taken from the path, the Content-Type or the bytes), or its base64 content (a data: URL is accepted).',
  }),
});

/** Output of the supported-formats listing (the spec does not show its shape). */
export const FormatsOutput = Type.Object({
  formats: Type.Array(Type.String(), { description: 'Accepted extensions with a leading dot (spec §4.6 list).' }),
  maxFileBytes: Type.Integer({ description: 'Largest accepted input in bytes.' }),
});

/** PDF/A levels (spec §4.6 `pdfa`). */
export const PdfALevel = Type.Union([Type.Literal('PDF/A-1b'), Type.Literal('PDF/A-2b'), Type.Literal('PDF/A-3b')], {
  description: 'Write the merged PDF as PDF/A at this part, conformance level B.',
});

/** Input of merge-pdfs (spec §4.6). */
export const MergeInput = Type.Object({
  inputMethod: InputMethod,
  files: Type.Array(Type.String({ minLength: 1 }), {
    minItems: 2,
    maxItems: 100,
    description: 'The PDFs in page order: URLs or base64 contents (at least 2, spec §8.2).',
  }),
  metadata: Type.Optional(
    Type.Object(
      {
        Title: Type.Optional(Type.String({ maxLength: 2000, description: 'Document title.' })),
        Author: Type.Optional(Type.String({ maxLength: 2000, description: 'Document author.' })),
        Subject: Type.Optional(Type.String({ maxLength: 2000, description: 'Document subject.' })),
        Keywords: Type.Optional(Type.String({ maxLength: 2000, description: 'Document keywords.' })),
      },
      { description: 'Document information written to the Info dictionary and XMP (Unicode kept).' },
    ),
  ),
  pdfa: Type.Optional(PdfALevel),
  pdfua: Type.Optional(Type.Boolean({ description: 'Attempt PDF/UA: structure trees merged (untagged pages get page-level tags), title, language, MarkInfo and pdfuaid. With pdfa the tags are dropped and PDF/UA is not claimed.' })),
});

const urlsValid = (values: string[]) =>
  values.every((v) => {
    try {
      return ['http:', 'https:'].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  });

export const convertToPdf = defineCapability({
  id: 'convert_to_pdf',
  title: 'Convert a document to PDF',
  summary: 'Convert an office document, image or web file to PDF and return a temporary download URL.',
  tags: ['pdf', 'convert', 'document', 'office', 'docx', 'xlsx', 'pptx', 'libreoffice'],
  visibility: 'legacy',
  input: ConvertInput,
  output: PdfUrlOutput,
  cost: perOutputMb({ credits: 50, perMb: 100, maxMb: 100 }),
  messages: {
    inputMethod: "'inputMethod' parameter is required and must be 'url' or 'base64'.",
    file: "'file' parameter is required and must be a non-empty string.",
  },
  validate(input: Static<typeof ConvertInput>) {
    if (input.inputMethod === 'url' && !urlsValid([input.file])) return "'file' must be an http or https URL when 'inputMethod' is 'url'.";
    return undefined;
  },
  examples: [{ title: 'Convert a text file given as base64', input: { inputMethod: 'base64', file: 'SGVsbG8sIFBERiE=' } }],
});

export const convertToPdfFormats = defineCapability({
  id: 'convert_to_pdf_formats',
  title: 'List formats convertible to PDF',
  summary: 'The file extensions convert-to-pdf accepts.',
  tags: ['pdf', 'formats'],
  visibility: 'legacy',
  input: Type.Object({}),
  output: FormatsOutput,
  cost: flat(0),
});

export const mergePdfs = defineCapability({
  id: 'merge_pdfs',
  title: 'Merge PDFs',
  summary: 'Merge two or more PDFs, optionally as PDF/A or PDF/UA, and return a temporary download URL.',
  tags: ['pdf', 'merge', 'pdfa', 'pdfua', 'combine'],
  visibility: 'legacy',
  input: MergeInput,
  output: PdfUrlOutput,
  cost: perOutputMb({ credits: 50, perMb: 100, maxMb: 100 }),
  messages: {
    inputMethod: "'inputMethod' parameter is required and must be 'url' or 'base64'.",
    files: "'files' parameter is required and must be an array of at least 2 non-empty strings.",
    metadata: "'metadata' must be an object with optional string fields Title, Author, Subject and Keywords.",
    pdfa: "'pdfa' must be one of 'PDF/A-1b', 'PDF/A-2b' or 'PDF/A-3b'.",
    pdfua: "'pdfua' must be a boolean.",
  },
  validate(input: Static<typeof MergeInput>) {
    if (input.inputMethod === 'url' && !urlsValid(input.files)) return "Every entry of 'files' must be an http or https URL when 'inputMethod' is 'url'.";
    return undefined;
  },
});

export default [convertToPdf, convertToPdfFormats, mergePdfs];
