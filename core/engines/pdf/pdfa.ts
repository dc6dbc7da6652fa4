/**
 * PDF/A-1b/2b/3b with ghostscript (spec §4.6 `pdfa`): fonts embedded, colours converted to RGB,
 * an sRGB output intent. ghostscript drops tags and non-ASCII document information, so the
 * caller writes metadata and XMP afterwards (`finalize`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OperationFailedError } from '../../errors.js';
import type { PdfAPart, PdfRunOptions } from './types.js';
import { runTool, withScratch } from './tools.js';

/** Finds an sRGB ICC profile: `PDF_ICC_PROFILE`, else the one ghostscript ships. */
export function findSrgbProfile(env: Record<string, string | undefined>): string | undefined {
  const fromEnv = env.PDF_ICC_PROFILE?.trim();
  if (fromEnv) return fromEnv;
  const base = '/usr/share/ghostscript';
  if (!existsSync(base)) return undefined;
  for (const v of readdirSync(base).sort().reverse()) {
    const p = join(base, v, 'iccprofiles', 'srgb.icc');
    if (existsSync(p)) return p;
  }
  const color = '/usr/share/color/icc/sRGB.icc';
  return existsSync(color) ? color : undefined;
}

/** The PostScript prologue that adds the output intent (ghostscript's PDFA_def.ps, trimmed). */
function prologue(icc: string): string {
  const ps = icc.replace(/[()\\]/g, (c) => `\\${c}`);
  return `%!
[/_objdef {icc_PDFA} /type /stream /OBJ pdfmark
[{icc_PDFA} << /N 3 >> /PUT pdfmark
[{icc_PDFA} (${ps}) (r) file /PUT pdfmark
[/_objdef {OutputIntent_PDFA} /type /dict /OBJ pdfmark
[{OutputIntent_PDFA} << /Type /OutputIntent /S /GTS_PDFA1 /DestOutputProfile {icc_PDFA}
  /OutputConditionIdentifier (sRGB IEC61966-2.1) /Info (sRGB IEC61966-2.1) /RegistryName (http://www.color.org) >> /PUT pdfmark
[{Catalog} << /OutputIntents [ {OutputIntent_PDFA} ] >> /PUT pdfmark
`;
}

/** Rewrites `pdf` as PDF/A-<part>b. */
export async function toPdfA(pdf: Uint8Array, part: PdfAPart, icc: string | undefined, gs = 'gs', run: PdfRunOptions = {}): Promise<Uint8Array> {
  if (!icc) throw new OperationFailedError('Failed to produce PDF/A: no sRGB ICC profile is installed.');
  return withScratch(undefined, async (dir) => {
    const input = join(dir, 'in.pdf');
    const output = join(dir, 'out.pdf');
    const def = join(dir, 'pdfa.ps');
    await writeFile(input, pdf);
    await writeFile(def, prologue(icc));
    const r = await runTool(gs, [
      '-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', `--permit-file-read=${icc}`,
      '-sDEVICE=pdfwrite', `-dPDFA=${part}`, '-dPDFACompatibilityPolicy=1',
      '-sColorConversionStrategy=RGB', '-sProcessColorModel=DeviceRGB',
      '-dEmbedAllFonts=true', '-dSubsetFonts=true', '-dAutoRotatePages=/None',
      ...(part === 1 ? ['-dCompatibilityLevel=1.4'] : ['-dCompatibilityLevel=1.7']),
      `-sOutputFile=${output}`, def, input,
    ], { ...run, readOnly: [icc], dirs: [dir] });
    const out = await readFile(output).catch(() => undefined);
    if (r.code !== 0 || !out || out.byteLength === 0) {
      throw new OperationFailedError('Failed to produce PDF/A: ghostscript could not convert the document.', { cause: new Error(r.stderr.slice(-2000)) });
    }
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  });
}
