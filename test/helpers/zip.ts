/**
 * A minimal ZIP writer for tests (deflated or stored entries, no ZIP64): enough to build OOXML
 * and ODF documents, including zip bombs, in memory and in milliseconds.
 */
import { crc32, deflateRawSync } from 'node:zlib';

/** One entry: its name, content and whether it is stored instead of deflated. */
export interface ZipEntry {
  name: string;
  data: Buffer | string;
  store?: boolean;
}

/**
 * An entry deflated beforehand, in a stream (a bomb too large to hold inflated), with the CRC-32
 * and size of what it inflates to.
 */
export interface PreDeflatedEntry {
  name: string;
  deflated: Buffer;
  crc: number;
  size: number;
}

/** Body, CRC and inflated size of one entry as it is written. */
function written(e: ZipEntry | PreDeflatedEntry): { body: Buffer; crc: number; size: number; stored: boolean } {
  if ('deflated' in e) return { body: e.deflated, crc: e.crc, size: e.size, stored: false };
  const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data);
  return { body: e.store ? data : deflateRawSync(data, { level: 9 }), crc: crc32(data), size: data.length, stored: e.store === true };
}

/** The archive of `entries`, in order. */
export function zip(entries: (ZipEntry | PreDeflatedEntry)[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const { body, crc, size, stored } = written(e);
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(stored ? 0 : 8, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size >>> 0, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(stored ? 0 : 8, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size >>> 0, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** The text around a DOCX body's paragraphs. */
export const DOCX_HEAD = '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
export const DOCX_TAIL = '</w:body></w:document>';

/** A DOCX around its `word/document.xml` entry (given whole or deflated beforehand). */
export function docxAround(document: Omit<ZipEntry, 'name'> | Omit<PreDeflatedEntry, 'name'>): Buffer {
  return zip([
    { name: '[Content_Types].xml', data: '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>' },
    { name: '_rels/.rels', data: '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>' },
    { name: 'word/document.xml', ...document },
  ]);
}

/** A DOCX whose `word/document.xml` holds `paragraphs` paragraphs of one letter each. */
export function docx(paragraphs: number, text = 'A'): Buffer {
  return docxAround({ data: DOCX_HEAD + `<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`.repeat(paragraphs) + DOCX_TAIL });
}

/** An ODT whose `content.xml` holds `paragraphs` paragraphs of one letter each. */
export function odt(paragraphs: number): Buffer {
  const body = '<text:p>A</text:p>'.repeat(paragraphs);
  return zip([
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', store: true },
    { name: 'META-INF/manifest.xml', data: '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>' },
    { name: 'content.xml', data: `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:text>${body}</office:text></office:body></office:document-content>` },
  ]);
}
