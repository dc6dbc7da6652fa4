/**
 * Bookmarks survive merging: each input's outline follows the previous input's at the top level,
 * nested items stay nested, and every destination (explicit, named in /Dests, named in the
 * /Names tree, or a GoTo action) lands on the right page of the merged file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRef, PDFString, type PDFObject } from 'pdf-lib';
import { createPdfEngine } from './index.js';

const engine = createPdfEngine({ dataDir: '/tmp', publicBaseUrl: () => '', env: {}, log: console as never });

type Item = { title: string; dest: (doc: PDFDocument) => PDFObject; key?: 'Dest' | 'A'; kids?: Item[] };

/** A PDF of `pages` pages whose outline is `items`. */
async function withOutline(pages: number, items: Item[], setup?: (doc: PDFDocument) => void): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([200, 200]).drawText(`page ${i + 1}`);
  setup?.(doc);
  const ctx = doc.context;
  const build = (list: Item[], parent: PDFRef): { first: PDFRef; last: PDFRef; count: number } => {
    const refs = list.map(() => ctx.nextRef());
    let count = list.length;
    list.forEach((it, i) => {
      const dict = ctx.obj({ Title: PDFHexString.fromText(it.title), Parent: parent });
      if (i > 0) dict.set(PDFName.of('Prev'), refs[i - 1]!);
      if (i < list.length - 1) dict.set(PDFName.of('Next'), refs[i + 1]!);
      const d = it.dest(doc);
      if (it.key === 'A') dict.set(PDFName.of('A'), ctx.obj({ S: 'GoTo', D: d }));
      else dict.set(PDFName.of('Dest'), d);
      if (it.kids) {
        const sub = build(it.kids, refs[i]!);
        dict.set(PDFName.of('First'), sub.first);
        dict.set(PDFName.of('Last'), sub.last);
        dict.set(PDFName.of('Count'), ctx.obj(sub.count));
        count += sub.count;
      }
      ctx.assign(refs[i]!, dict);
    });
    return { first: refs[0]!, last: refs[refs.length - 1]!, count };
  };
  const rootRef = ctx.nextRef();
  const { first, last, count } = build(items, rootRef);
  ctx.assign(rootRef, ctx.obj({ Type: 'Outlines', First: first, Last: last, Count: count }));
  doc.catalog.set(PDFName.of('Outlines'), rootRef);
  return doc.save();
}

const page = (n: number) => (doc: PDFDocument) => doc.context.obj([doc.getPage(n).ref, 'Fit']);

/** The merged outline as `title→page` lines, children indented. */
function outline(doc: PDFDocument): string[] {
  const pageIndex = new Map(doc.getPages().map((p, i) => [p.ref.toString(), i + 1]));
  const lines: string[] = [];
  const walk = (ref: PDFObject | undefined, depth: number, parent: PDFObject) => {
    for (let r = ref; r instanceof PDFRef; ) {
      const item = doc.context.lookup(r, PDFDict);
      assert.equal(item.get(PDFName.of('Parent'))?.toString(), parent.toString(), 'parent link');
      const title = (item.lookup(PDFName.of('Title')) as PDFHexString | PDFString).decodeText();
      const dest = item.lookupMaybe(PDFName.of('Dest'), PDFArray) ?? item.lookupMaybe(PDFName.of('A'), PDFDict)?.lookupMaybe(PDFName.of('D'), PDFArray);
      const target = dest?.get(0);
      lines.push(`${'  '.repeat(depth)}${title}→${target ? pageIndex.get(target.toString()) ?? 'lost page' : 'none'}`);
      walk(item.get(PDFName.of('First')), depth + 1, r);
      const next = item.get(PDFName.of('Next'));
      if (next instanceof PDFRef) assert.equal(doc.context.lookup(next, PDFDict).get(PDFName.of('Prev'))?.toString(), r.toString(), 'prev link');
      r = next;
    }
  };
  const rootRef = doc.catalog.get(PDFName.of('Outlines'));
  assert.ok(rootRef instanceof PDFRef, 'merged file has an outline');
  walk(doc.context.lookup(rootRef, PDFDict).get(PDFName.of('First')), 0, rootRef);
  return lines;
}

test('merging keeps every input’s bookmarks, in order, pointing at the right pages', async () => {
  const a = await withOutline(2, [
    { title: 'A intro', dest: page(0) },
    { title: 'A body', dest: page(1), kids: [{ title: 'A body detail', dest: page(1), key: 'A' }] },
  ]);
  const b = await withOutline(1, [{ title: 'No bookmarks follow' , dest: page(0) }]);
  const plain = await PDFDocument.create();
  plain.addPage([200, 200]);
  const c = await plain.save();
  const d = await withOutline(
    3,
    [
      { title: 'D named in /Dests', dest: () => PDFName.of('third') },
      { title: 'D named in the name tree', dest: () => PDFString.of('second'), key: 'A' },
      { title: 'D unknown name', dest: () => PDFName.of('missing') },
    ],
    (doc) => {
      doc.catalog.set(PDFName.of('Dests'), doc.context.obj({ third: [doc.getPage(2).ref, 'Fit'] }));
      const dests = doc.context.obj({ Names: [PDFString.of('second'), doc.context.obj({ D: [doc.getPage(1).ref, 'Fit'] })] });
      doc.catalog.set(PDFName.of('Names'), doc.context.obj({ Dests: doc.context.register(dests) }));
    },
  );
  const expected = [
    'A intro→1',
    'A body→2',
    '  A body detail→2',
    'No bookmarks follow→3',
    'D named in /Dests→7',
    'D named in the name tree→6',
    'D unknown name→none',
  ];
  for (const keepStructure of [false, true]) {
    const merged = await engine.merge([a, b, c, d], { keepStructure });
    assert.equal(merged.pages, 7);
    const doc = await PDFDocument.load(merged.pdf);
    assert.equal(doc.getPageCount(), 7, 'no page copied twice through a bookmark');
    assert.deepEqual(outline(doc), expected, `keepStructure ${keepStructure}`);
    if (keepStructure) continue;
    // The PDF/A rewrite (ghostscript) keeps them too (it points the item without a target at page 1).
    const pdfa = outline(await PDFDocument.load(await engine.toPdfA(merged.pdf, 2)));
    assert.deepEqual(pdfa.slice(0, -1), expected.slice(0, -1), 'after PDF/A');
    assert.match(pdfa.at(-1)!, /^D unknown name→/);
  }
});

test('inputs without bookmarks give a merged file without an outline', async () => {
  const one = await PDFDocument.create();
  one.addPage([100, 100]);
  const bytes = await one.save();
  const merged = await PDFDocument.load((await engine.merge([bytes, bytes])).pdf);
  assert.equal(merged.getPageCount(), 2);
  assert.equal(merged.catalog.get(PDFName.of('Outlines')), undefined);
});
