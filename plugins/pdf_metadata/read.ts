/** read-pdf-metadata (issue 28): poppler's `pdfinfo` for the document information and file facts, its `-meta` for the XMP packet. */
import { join } from 'node:path';
import { inputHead, writeInputFile, type LoadedInput, type Static } from '../../core/sdk.js';
import type { PdfMetadataEntry } from '../../core/catalogue.js';
import { checkPdf, tool, type ToolDeps } from './tools.js';
import { pdfaClaim } from './xmp.js';

type Entry = Static<typeof PdfMetadataEntry>;

/** `Key: value` lines of pdfinfo. */
function fields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z][A-Za-z ]*?):\s?(.*)$/.exec(line);
    if (m && !out.has(m[1]!)) out.set(m[1]!, m[2]!.trim());
  }
  return out;
}

/** What one PDF says about itself. */
export async function readOne(deps: ToolDeps, dir: string, input: LoadedInput, label: string): Promise<Entry> {
  // Checked on its first bytes and copied for the tool: a large body's file is never read here (issue 24).
  checkPdf(inputHead(input), label);
  const file = join(dir, `${label.replace(/\W/g, '_')}.pdf`);
  await writeInputFile(input, file);
  const info = fields(await tool(deps, 'pdfinfo', ['-isodates', '-enc', 'UTF-8', file], label));
  const xmp = info.get('Metadata Stream') === 'yes' ? await tool(deps, 'pdfinfo', ['-meta', file], label) : '';
  const claim = pdfaClaim(xmp);
  const text = (k: string) => info.get(k) || null;
  return {
    Title: text('Title'),
    Author: text('Author'),
    Subject: text('Subject'),
    Keywords: text('Keywords'),
    Creator: text('Creator'),
    Producer: text('Producer'),
    CreationDate: text('CreationDate'),
    ModDate: text('ModDate'),
    pageCount: Number(info.get('Pages')) || 0,
    pdfVersion: info.get('PDF version') ?? '',
    encrypted: (info.get('Encrypted') ?? 'no').startsWith('yes'),
    tagged: info.get('Tagged') === 'yes',
    pdfaPart: claim.part,
    pdfaConformance: claim.conformance,
  };
}
