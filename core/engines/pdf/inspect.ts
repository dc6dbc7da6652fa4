/**
 * Reads a PDF back the way a checker would (used by tests and the bench; spec §4.6): pages,
 * document information, the XMP identification, output intent, tags and font embedding. No
 * PDF/A validator is installable here, so these structural checks plus `qpdf --check` stand in.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString } from 'pdf-lib';
import type { PdfInspection } from './types.js';
import { runTool, withScratch } from './tools.js';

function xmpOf(doc: PDFDocument): string | null {
  const s = doc.catalog.lookup(PDFName.of('Metadata'));
  if (!(s instanceof PDFRawStream)) return null;
  return Buffer.from(decodePDFRawStream(s).decode()).toString('utf8');
}

function xmpField(xmp: string, name: string): string | undefined {
  return new RegExp(`${name}>\\s*([^<\\s]+)\\s*<`).exec(xmp)?.[1] ?? new RegExp(`${name}="([^"]*)"`).exec(xmp)?.[1];
}

/** Parses `pdffonts` output into names and embedding flags. */
export function parsePdffonts(out: string): { name: string; embedded: boolean }[] {
  const lines = out.split('\n');
  const rule = lines.findIndex((l) => l.startsWith('---'));
  if (rule < 0) return [];
  const header = lines[rule - 1] ?? '';
  const embAt = header.indexOf('emb');
  return lines
    .slice(rule + 1)
    .filter((l) => l.trim())
    .map((l) => ({ name: l.split(/\s+/)[0]!, embedded: l.slice(embAt, embAt + 3).trim() === 'yes' }));
}

/** Inspects one PDF. */
export async function inspect(pdf: Uint8Array): Promise<PdfInspection> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, ignoreEncryption: true });
  const info: Record<string, string> = {};
  const infoRef = doc.context.trailerInfo.Info;
  const infoDict = infoRef ? doc.context.lookup(infoRef) : undefined;
  if (infoDict instanceof PDFDict) {
    for (const [k, v] of infoDict.entries()) {
      const val = v instanceof PDFString || v instanceof PDFHexString ? v.decodeText() : v instanceof PDFName ? v.decodeText() : undefined;
      if (val !== undefined) info[k.decodeText()] = val;
    }
  }
  const xmp = xmpOf(doc);
  const part = xmp ? xmpField(xmp, 'pdfaid:part') : undefined;
  const conformance = xmp ? xmpField(xmp, 'pdfaid:conformance') : undefined;
  const ua = xmp ? xmpField(xmp, 'pdfuaid:part') : undefined;
  const intents = doc.catalog.lookupMaybe(PDFName.of('OutputIntents'), PDFArray);
  let outputIntent = false;
  for (let i = 0; intents && i < intents.size(); i++) {
    const oi = intents.lookupMaybe(i, PDFDict);
    if (oi?.get(PDFName.of('S')) === PDFName.of('GTS_PDFA1') && oi.has(PDFName.of('DestOutputProfile'))) outputIntent = true;
  }
  const markInfo = doc.catalog.lookupMaybe(PDFName.of('MarkInfo'), PDFDict);
  const tagged = doc.catalog.has(PDFName.of('StructTreeRoot')) && String(markInfo?.get(PDFName.of('Marked'))) === 'true';
  const fonts = await withScratch(undefined, async (dir) => {
    const file = join(dir, 'in.pdf');
    await writeFile(file, pdf);
    const r = await runTool('pdffonts', [file]);
    return r.code === 0 ? parsePdffonts(r.stdout) : [];
  });
  return {
    pages: doc.getPageCount(),
    encrypted: doc.isEncrypted,
    info,
    xmp,
    pdfa: part ? { part: Number(part), conformance: conformance ?? '' } : null,
    pdfua: ua ? Number(ua) : null,
    outputIntent,
    tagged,
    fonts,
  };
}

/** `qpdf --check`: exit 0 means no errors and no warnings. */
export async function check(pdf: Uint8Array): Promise<{ ok: boolean; output: string }> {
  return withScratch(undefined, async (dir) => {
    const file = join(dir, 'in.pdf');
    await writeFile(file, pdf);
    const r = await runTool('qpdf', ['--check', file]);
    return { ok: r.code === 0, output: (r.stdout + r.stderr).trim() };
  });
}
