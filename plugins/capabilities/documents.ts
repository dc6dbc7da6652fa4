/**
 * Document capabilities kept on the direct lane (spec §4.6, §9.1: `visibility: 'legacy'`).
 * Owned by the documents lane, which refines the schemas and messages.
 */
import { Type, defineCapability, perOutputMb, flat } from '../../core/sdk.js';

const InputMethod = Type.Union([Type.Literal('url'), Type.Literal('base64')], { description: 'How `file`/`files` are given.' });
const Url = Type.Object({ url: Type.String({ description: 'Temporary download URL, retained 24 hours.' }) });

export const convertToPdf = defineCapability({
  id: 'convert_to_pdf',
  title: 'Convert a document to PDF',
  summary: 'Convert an office document, image or web file to PDF and return a temporary download URL.',
  tags: ['pdf', 'convert', 'document', 'office'],
  visibility: 'legacy',
  input: Type.Object({
    inputMethod: InputMethod,
    file: Type.String({ description: 'URL of the file, or its base64 content.', minLength: 1 }),
  }),
  output: Url,
  cost: perOutputMb({ credits: 50, perMb: 100, maxMb: 100 }),
});

export const convertToPdfFormats = defineCapability({
  id: 'convert_to_pdf_formats',
  title: 'List formats convertible to PDF',
  summary: 'The file extensions convert-to-pdf accepts.',
  tags: ['pdf', 'formats'],
  visibility: 'legacy',
  input: Type.Object({}),
  cost: flat(0),
});

export const mergePdfs = defineCapability({
  id: 'merge_pdfs',
  title: 'Merge PDFs',
  summary: 'Merge two or more PDFs, optionally as PDF/A or PDF/UA, and return a temporary download URL.',
  tags: ['pdf', 'merge', 'pdfa'],
  visibility: 'legacy',
  input: Type.Object({
    inputMethod: InputMethod,
    files: Type.Array(Type.String({ minLength: 1 }), { minItems: 2, description: 'URLs or base64 PDF contents, in page order.' }),
    metadata: Type.Optional(Type.Object({
      Title: Type.Optional(Type.String({ description: 'Document title.' })),
      Author: Type.Optional(Type.String({ description: 'Document author.' })),
      Subject: Type.Optional(Type.String({ description: 'Document subject.' })),
      Keywords: Type.Optional(Type.String({ description: 'Document keywords.' })),
    }, { description: 'Document information to write.' })),
    pdfa: Type.Optional(Type.Union([Type.Literal('PDF/A-1b'), Type.Literal('PDF/A-2b'), Type.Literal('PDF/A-3b')], { description: 'PDF/A conformance of the output.' })),
    pdfua: Type.Optional(Type.Boolean({ description: 'Attempt PDF/UA compliance.' })),
  }),
  output: Url,
  cost: perOutputMb({ credits: 50, perMb: 100, maxMb: 100 }),
});

export default [convertToPdf, convertToPdfFormats, mergePdfs];
