/**
 * merge-pdfs with `pdfua: true` (spec §4.6 "attempt PDF/UA compliance"; issue 19 item 5),
 * black-box through the real server, reading the produced PDF back with pdf-lib and poppler:
 * PDF/UA identification, `MarkInfo`, `DisplayDocTitle`, language, title, and a structure tree in
 * which every marked-content id and link annotation of every page resolves through the merged
 * parent tree, whether the inputs were tagged (made by convert-to-pdf), untagged (made by
 * pdf-lib) or both.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFString, StandardFonts, type PDFObject } from 'pdf-lib';
import { pluginsConfig } from './helpers/plugins.js';
import { startServer, type TestServer } from './helpers/server.js';
import { createPdfEngine } from '../core/engines/pdf/index.js';

const pdfTools = createPdfEngine({ dataDir: '/tmp', publicBaseUrl: () => '', env: {}, log: console as never });
const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');
const name = (s: string) => PDFName.of(s);
const text = (o: PDFObject | undefined) => (o instanceof PDFString || o instanceof PDFHexString ? o.decodeText() : undefined);

let s: TestServer;
let key: string;
/** Tagged by LibreOffice: one page, and two pages. */
let one: Buffer;
let two: Buffer;
/** Untagged (pdf-lib): two pages (contents behind a reference), a link on the first, a title and a language. */
let untagged: Uint8Array;
/** Untagged, with neither title nor language. */
let bare: Uint8Array;

async function call(path: string, body: unknown): Promise<Buffer> {
  const res = await s.call('POST', path, { key, body });
  assert.equal(res.status, 200, res.text);
  return Buffer.from(await (await fetch(res.json.url)).arrayBuffer());
}

async function plainPdf(lines: string[], opts: { title?: string; lang?: string; link?: string; indirectContents?: boolean } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const line of lines) {
    const page = doc.addPage([300, 200]);
    page.drawText(line, { x: 20, y: 150, size: 14, font });
    // Contents as a reference to an array of streams, as some producers write it.
    const contents = page.node.get(name('Contents'));
    if (opts.indirectContents && contents instanceof PDFArray) page.node.set(name('Contents'), doc.context.register(contents));
  }
  if (opts.title) doc.setTitle(opts.title);
  if (opts.lang) doc.catalog.set(name('Lang'), PDFString.of(opts.lang));
  if (opts.link) {
    const annot = doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [20, 140, 200, 170], Border: [0, 0, 0], A: { S: 'URI', URI: PDFString.of(opts.link) } });
    doc.getPage(0).node.set(name('Annots'), doc.context.obj([annot]));
  }
  return doc.save();
}

const structText = (pdf: Buffer) => execFileSync('pdfinfo', ['-struct-text', '-'], { input: pdf }).toString();

/** The decoded content of a page's streams, concatenated. */
function pageContent(doc: PDFDocument, leaf: PDFDict): string {
  const contents = leaf.lookup(name('Contents'));
  const streams = contents instanceof PDFArray ? contents.asArray().map((r) => doc.context.lookup(r)) : [contents];
  return streams.map((st) => (st instanceof PDFRawStream ? Buffer.from(decodePDFRawStream(st).decode()).toString('latin1') : '')).join('\n');
}

/**
 * Walks every page: each MCID in its content must name a structure element through the parent
 * tree entry of its `StructParents`, and each annotation with a `StructParent` an element whose
 * object reference is that annotation. Returns the counts, so a test sees what was checked.
 */
function checkParentTree(doc: PDFDocument): { mcids: number; annots: number } {
  const root = doc.catalog.lookup(name('StructTreeRoot'), PDFDict);
  const nums = root.lookup(name('ParentTree'), PDFDict).lookup(name('Nums'), PDFArray);
  const entries = new Map<number, PDFObject>();
  for (let i = 0; i + 1 < nums.size(); i += 2) entries.set((nums.lookup(i) as PDFNumber).asNumber(), nums.get(i + 1));
  let mcids = 0;
  let annots = 0;
  for (const [p, page] of doc.getPages().entries()) {
    const ids = [...pageContent(doc, page.node).matchAll(/\/MCID\s+(\d+)/g)].map((m) => Number(m[1]));
    if (ids.length > 0) {
      const key = page.node.lookup(name('StructParents'), PDFNumber).asNumber();
      const arr = doc.context.lookup(entries.get(key), PDFArray);
      for (const id of ids) {
        const el = arr.lookupMaybe(id, PDFDict);
        assert.ok(el?.get(name('S')) instanceof PDFName, `page ${p + 1}: MCID ${id} has no element`);
        mcids++;
      }
    }
    const list = page.node.lookupMaybe(name('Annots'), PDFArray);
    for (let i = 0; list && i < list.size(); i++) {
      const annot = list.lookup(i, PDFDict);
      const sp = annot.lookupMaybe(name('StructParent'), PDFNumber);
      if (!sp) continue;
      const el = doc.context.lookup(entries.get(sp.asNumber()), PDFDict);
      const objr = el.lookup(name('K'), PDFDict);
      assert.equal(objr.get(name('Obj')), list.get(i), `page ${p + 1}: annotation ${i} is not its element's object`);
      assert.equal(page.node.get(name('Tabs')), name('S'), `page ${p + 1}: annotations in structure order`);
      annots++;
    }
  }
  return { mcids, annots };
}

/** The document-level PDF/UA entries a reader and a checker look at. */
async function uaEntries(pdf: Buffer) {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const prefs = doc.catalog.lookupMaybe(name('ViewerPreferences'), PDFDict);
  const info = await pdfTools.inspect(pdf);
  return { doc, info, lang: text(doc.catalog.lookup(name('Lang'))), displayDocTitle: prefs?.get(name('DisplayDocTitle'))?.toString() === 'true' };
}

before(async () => {
  s = await startServer({ serviceConfig: pluginsConfig(['documents']), env: { OFFICE_POOL_SIZE: '1' } });
  key = (await s.createKey({ credits: 100_000 })).key;
  one = await call('/api/v1/convert-to-pdf', { inputMethod: 'base64', file: b64('Merge input one\n') });
  two = await call('/api/v1/convert-to-pdf', {
    inputMethod: 'base64',
    file: b64('<html><body><h1>Merge input two</h1><p style="page-break-after:always">a</p><p>second page of two</p></body></html>'),
  });
  untagged = await plainPdf(['Untagged page one', 'Untagged page two'], { title: 'Quarterly untagged report', lang: 'fr-FR', link: 'https://example.com/report', indirectContents: true });
  bare = await plainPdf(['Bare input page']);
});

after(async () => s?.close());

test('tagged inputs: their structure trees are merged and PDF/UA-1 is declared', async () => {
  const pdf = await call('/api/v1/merge-pdfs', { inputMethod: 'base64', files: [b64(one), b64(two)], pdfua: true, metadata: { Title: 'Accessible' } });
  const { doc, info, lang, displayDocTitle } = await uaEntries(pdf);
  assert.equal(info.pages, 3);
  assert.ok(info.tagged, 'StructTreeRoot and MarkInfo Marked');
  assert.equal(info.pdfua, 1);
  assert.equal(info.info.Title, 'Accessible');
  assert.ok(displayDocTitle, 'DisplayDocTitle');
  assert.equal(lang, 'en-US', 'the inputs’ language');
  assert.match(structText(pdf), /Merge input one[\s\S]*Merge input two[\s\S]*second page of two/);
  assert.ok(checkParentTree(doc).mcids >= 3, 'every page’s marked content resolves');
  assert.ok((await pdfTools.check(pdf)).ok);
});

test('untagged and tagged inputs together: the untagged pages are tagged too, nothing is left out', async () => {
  const pdf = await call('/api/v1/merge-pdfs', { inputMethod: 'base64', files: [b64(untagged), b64(one), b64(two)], pdfua: true });
  const { doc, info, lang, displayDocTitle } = await uaEntries(pdf);
  assert.equal(info.pages, 5);
  assert.ok(info.tagged);
  assert.equal(info.pdfua, 1);
  // No metadata.Title: the first input's title; its language is the document's.
  assert.equal(info.info.Title, 'Quarterly untagged report');
  assert.match(info.xmp!, /<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Quarterly untagged report<\/rdf:li>/);
  assert.ok(displayDocTitle);
  assert.equal(lang, 'fr-FR');
  // Reading order through the tags: the untagged pages, then the tagged inputs.
  assert.match(structText(pdf), /Untagged page one[\s\S]*Untagged page two[\s\S]*Merge input one[\s\S]*second page of two/);
  const checked = checkParentTree(doc);
  assert.ok(checked.mcids >= 5, `${checked.mcids} marked-content ids`);
  assert.equal(checked.annots, 1, 'the link annotation is in the structure');
  const link = doc.getPage(0).node.lookup(name('Annots'), PDFArray).lookup(0, PDFDict);
  assert.equal(text(link.lookup(name('Contents'))), 'https://example.com/report', 'the link is described');
  // The LibreOffice inputs speak en-US under a French document: their parts say so.
  const docElem = doc.catalog.lookup(name('StructTreeRoot'), PDFDict).lookup(name('K'), PDFDict);
  const parts = docElem.lookup(name('K'), PDFArray).asArray().map((r) => doc.context.lookup(r, PDFDict));
  assert.equal(parts[0]!.lookupMaybe(name('Lang'), PDFString), undefined, 'the first part speaks the document’s language');
  assert.ok(parts.slice(1).some((p) => text(p.lookup(name('Lang'))) === 'en-US'), 'a LibreOffice part keeps en-US');
  assert.ok((await pdfTools.check(pdf)).ok, 'qpdf --check');
});

test('only untagged inputs: a tagged result with a generic title and English as language', async () => {
  const pdf = await call('/api/v1/merge-pdfs', { inputMethod: 'base64', files: [b64(bare), b64(bare)], pdfua: true });
  const { doc, info, lang, displayDocTitle } = await uaEntries(pdf);
  assert.ok(info.tagged);
  assert.equal(info.pdfua, 1);
  assert.equal(info.info.Title, 'Merged document');
  assert.ok(displayDocTitle);
  assert.equal(lang, 'en');
  assert.equal((structText(pdf).match(/Bare input page/g) ?? []).length, 2);
  assert.equal(checkParentTree(doc).mcids, 2);
  assert.ok((await pdfTools.check(pdf)).ok);
});

test('with pdfa too: PDF/A wins (ghostscript drops tags), title and language are still written', async () => {
  const pdf = await call('/api/v1/merge-pdfs', { inputMethod: 'base64', files: [b64(untagged), b64(one)], pdfua: true, pdfa: 'PDF/A-2b' });
  const { info, lang, displayDocTitle } = await uaEntries(pdf);
  assert.deepEqual(info.pdfa, { part: 2, conformance: 'B' });
  assert.equal(info.pdfua, null, 'PDF/UA is not claimed on an untagged file');
  assert.equal(info.info.Title, 'Quarterly untagged report');
  assert.ok(displayDocTitle);
  assert.equal(lang, 'fr-FR');
  assert.ok((await pdfTools.check(pdf)).ok);
});

test('without pdfua nothing of this is added', async () => {
  const pdf = await call('/api/v1/merge-pdfs', { inputMethod: 'base64', files: [b64(bare), b64(one)] });
  const { info, lang, displayDocTitle } = await uaEntries(pdf);
  assert.equal(info.pdfua, null);
  assert.equal(info.tagged, false);
  assert.equal(lang, undefined);
  assert.equal(displayDocTitle, false);
});
