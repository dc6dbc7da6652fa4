/**
 * write-pdf-metadata (issue 28): qpdf reads the trailer, catalogue, Info dictionary and XMP
 * stream as JSON, and `--update-from-json` writes the new Info values and XMP packet back with
 * every other object and stream as it was (`--decode-level=none`: no stream is re-encoded).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, inputHead, writeInputFile, type LoadedInput } from '../../core/sdk.js';
import { checkPdf, tool, type ToolDeps } from './tools.js';
import { updatedXmp, type InfoField } from './xmp.js';

type Json = Record<string, unknown>;
interface QpdfJson {
  encrypt?: { encrypted?: boolean };
  qpdf: [{ maxobjectid: number }, Record<string, { value?: Json; stream?: { dict?: Json; data?: string } }>];
}

const isRef = (v: unknown): v is string => typeof v === 'string' && /^\d+ \d+ R$/.test(v);
const objArg = (ref: string) => ref.split(' ').slice(0, 2).join(',');

/** A PDF date `D:YYYYMMDDHHmmSSZ` and its ISO form for XMP, both for `now`. */
export function dates(now: Date): { pdf: string; iso: string } {
  const iso = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { pdf: `D:${iso.replace(/[-:T]/g, '').replace('Z', '')}Z`, iso };
}

/** The new PDF with `fields` set. */
export async function writeOne(deps: ToolDeps, dir: string, input: LoadedInput, label: string, fields: Partial<Record<InfoField, string>>, now = new Date()): Promise<Buffer> {
  // Checked on its first bytes and copied for the tool: a large body's file is never read here (issue 24).
  checkPdf(inputHead(input), label);
  const name = label.replace(/\W/g, '_');
  const file = join(dir, `${name}.pdf`);
  await writeInputFile(input, file);
  const json = async (args: string[]) => JSON.parse(await tool(deps, 'qpdf', ['--warning-exit-0', '--json=2', '--json-key=qpdf', ...args, file], label)) as QpdfJson;
  const head = await json(['--json-key=encrypt', '--json-object=trailer']);
  // Rewriting an encrypted file would need its passwords to re-encrypt it as it was.
  if (head.encrypt?.encrypted) throw new InputError(`'${label}' is encrypted: its metadata cannot be rewritten.`);
  const trailer = head.qpdf[1].trailer?.value ?? {};
  const rootRef = trailer['/Root'];
  if (!isRef(rootRef)) throw new InputError(`'${label}' is not a readable PDF.`);
  const infoRef = isRef(trailer['/Info']) ? trailer['/Info'] : undefined;
  const objs = (await json([`--json-object=${objArg(rootRef)}`, ...(infoRef ? [`--json-object=${objArg(infoRef)}`] : [])])).qpdf[1];
  const root = objs[`obj:${rootRef}`]?.value ?? {};
  const metaRef = isRef(root['/Metadata']) ? root['/Metadata'] : undefined;
  let oldXmp: string | undefined;
  let metaDict: Json = {};
  if (metaRef) {
    const stream = (await json(['--json-stream-data=inline', `--json-object=${objArg(metaRef)}`])).qpdf[1][`obj:${metaRef}`]?.stream;
    metaDict = stream?.dict ?? {};
    // Data qpdf could not decode (a filter it leaves alone) is replaced by a fresh packet.
    if (stream?.data && metaDict['/Filter'] === undefined) oldXmp = Buffer.from(stream.data, 'base64').toString('utf8');
  }

  const when = dates(now);
  let next = head.qpdf[0].maxobjectid;
  const patch: Record<string, unknown> = {};
  const info: Json = { ...(infoRef ? (objs[`obj:${infoRef}`]?.value ?? {}) : (trailer['/Info'] as Json | undefined) ?? {}) };
  for (const [k, v] of Object.entries(fields)) if (typeof v === 'string') info[`/${k}`] = `u:${v}`;
  info['/ModDate'] = `u:${when.pdf}`;
  const newInfoRef = infoRef ?? `${++next} 0 R`;
  patch[`obj:${newInfoRef}`] = { value: info };
  const xmp = updatedXmp(oldXmp, fields, when.iso);
  const { '/Filter': _f, '/DecodeParms': _d, '/Length': _l, ...dict } = metaDict;
  const newMetaRef = metaRef ?? `${++next} 0 R`;
  patch[`obj:${newMetaRef}`] = { stream: { dict: { ...dict, '/Type': '/Metadata', '/Subtype': '/XML' }, data: Buffer.from(xmp, 'utf8').toString('base64') } };
  if (!metaRef) patch[`obj:${rootRef}`] = { value: { ...root, '/Metadata': newMetaRef } };
  if (!infoRef) patch.trailer = { value: { ...trailer, '/Info': newInfoRef } };

  const patchFile = join(dir, `${name}.json`);
  const out = join(dir, `${name}.out.pdf`);
  await writeFile(patchFile, JSON.stringify({ qpdf: [{ jsonversion: 2, pushedinheritedpageresources: false, calledgetallpages: false, maxobjectid: next }, patch] }));
  await tool(deps, 'qpdf', ['--warning-exit-0', '--decode-level=none', '--compress-streams=n', `--update-from-json=${patchFile}`, file, out], label);
  return readFile(out);
}
