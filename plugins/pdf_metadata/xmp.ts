/**
 * Keeps a PDF's XMP packet in step with its document information (issue 28): the properties a
 * write sets are removed wherever the packet has them (element or attribute form) and written
 * again in one rdf:Description of their own; everything else in the packet (PDF/A and PDF/UA
 * claims, custom schemas) is kept as it was.
 */

/** The Info fields a write may set. */
export type InfoField = 'Title' | 'Author' | 'Subject' | 'Keywords' | 'Creator' | 'Producer';

const NS = {
  dc: 'http://purl.org/dc/elements/1.1/',
  pdf: 'http://ns.adobe.com/pdf/1.3/',
  xmp: 'http://ns.adobe.com/xap/1.0/',
} as const;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The XMP property and its markup for each Info field. */
const PROPERTY: Record<InfoField, { name: string; markup: (v: string) => string }> = {
  Title: { name: 'dc:title', markup: (v) => `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${esc(v)}</rdf:li></rdf:Alt></dc:title>` },
  Author: { name: 'dc:creator', markup: (v) => `<dc:creator><rdf:Seq><rdf:li>${esc(v)}</rdf:li></rdf:Seq></dc:creator>` },
  Subject: { name: 'dc:description', markup: (v) => `<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${esc(v)}</rdf:li></rdf:Alt></dc:description>` },
  Keywords: { name: 'pdf:Keywords', markup: (v) => `<pdf:Keywords>${esc(v)}</pdf:Keywords>` },
  Creator: { name: 'xmp:CreatorTool', markup: (v) => `<xmp:CreatorTool>${esc(v)}</xmp:CreatorTool>` },
  Producer: { name: 'pdf:Producer', markup: (v) => `<pdf:Producer>${esc(v)}</pdf:Producer>` },
};

/** Removes every occurrence of property `name` (`prefix:local`) from the packet. */
function without(xmp: string, name: string): string {
  const n = name.replace(':', '\\:');
  return xmp
    .replace(new RegExp(`<${n}\\b[^>]*/>`, 'g'), '')
    .replace(new RegExp(`<${n}\\b[^>]*>[\\s\\S]*?</${n}>`, 'g'), '')
    .replace(new RegExp(`\\s${n}\\s*=\\s*("[^"]*"|'[^']*')`, 'g'), '');
}

/** The packet after setting `fields` and the modification date `modified` (ISO 8601). */
export function updatedXmp(existing: string | undefined, fields: Partial<Record<InfoField, string>>, modified: string): string {
  const set = Object.entries(fields).filter(([, v]) => typeof v === 'string') as [InfoField, string][];
  const body = [...set.map(([f, v]) => PROPERTY[f].markup(v)), `<xmp:ModifyDate>${modified}</xmp:ModifyDate>`, `<xmp:MetadataDate>${modified}</xmp:MetadataDate>`].join('\n   ');
  const description = `<rdf:Description rdf:about="" xmlns:dc="${NS.dc}" xmlns:pdf="${NS.pdf}" xmlns:xmp="${NS.xmp}">\n   ${body}\n  </rdf:Description>\n `;
  if (existing && existing.includes('</rdf:RDF>')) {
    let xmp = existing;
    for (const name of [...set.map(([f]) => PROPERTY[f].name), 'xmp:ModifyDate', 'xmp:MetadataDate']) xmp = without(xmp, name);
    const at = xmp.lastIndexOf('</rdf:RDF>');
    return `${xmp.slice(0, at)} ${description}${xmp.slice(at)}`;
  }
  return [
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    `  ${description}</rdf:RDF>`,
    '</x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
}

/** The PDF/A part and conformance an XMP packet claims (`pdfaid:part`, `pdfaid:conformance`). */
export function pdfaClaim(xmp: string): { part: number | null; conformance: string | null } {
  const read = (name: string) => new RegExp(`pdfaid:${name}\\s*=\\s*["']([^"']*)["']|<pdfaid:${name}>\\s*([^<]*?)\\s*</pdfaid:${name}>`).exec(xmp);
  const part = read('part');
  const conf = read('conformance');
  const n = Number(part?.[1] ?? part?.[2]);
  return { part: Number.isInteger(n) && n > 0 ? n : null, conformance: (conf?.[1] ?? conf?.[2])?.toUpperCase() || null };
}
