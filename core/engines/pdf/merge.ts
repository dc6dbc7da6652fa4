/**
 * Merging with pdf-lib (spec §4.6: page order preserved). The plain merge copies pages; the
 * structure-keeping merge (for `pdfua`) also carries every input's structure tree into one
 * tree under a `Document` element, renumbering the parent-tree keys so marked content still
 * points at the right elements — pdf-lib's `copyPages` and `qpdf --pages` both drop the tags.
 */
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  PDFObjectCopier,
  PDFPage,
  PDFRef,
  type PDFObject,
  type PDFPageLeaf,
} from 'pdf-lib';

/** Appends every page of `docs` to a new document, in order. */
export async function mergePlain(docs: PDFDocument[]): Promise<PDFDocument> {
  const out = await PDFDocument.create({ updateMetadata: false });
  for (const doc of docs) {
    const pages = await out.copyPages(doc, doc.getPageIndices());
    for (const p of pages) out.addPage(p);
  }
  return out;
}

/** Flattens a number tree (`Nums` / `Kids`) into key/value pairs. */
function numberTree(doc: PDFDocument, node: PDFDict | undefined, acc: [number, PDFObject][] = []): [number, PDFObject][] {
  if (!node) return acc;
  const nums = node.lookupMaybe(PDFName.of('Nums'), PDFArray);
  if (nums) {
    for (let i = 0; i + 1 < nums.size(); i += 2) {
      const k = nums.lookup(i);
      if (k instanceof PDFNumber) acc.push([k.asNumber(), nums.get(i + 1)]);
    }
  }
  const kids = node.lookupMaybe(PDFName.of('Kids'), PDFArray);
  for (let i = 0; kids && i < kids.size(); i++) numberTree(doc, kids.lookupMaybe(i, PDFDict), acc);
  return acc;
}

function shiftKey(dict: PDFDict, key: string, offset: number): void {
  const v = dict.get(PDFName.of(key));
  if (v instanceof PDFNumber) dict.set(PDFName.of(key), PDFNumber.of(v.asNumber() + offset));
}

/** Merges pages and structure trees; `tagged` is false when some input had no structure tree. */
export async function mergeTagged(docs: PDFDocument[]): Promise<{ doc: PDFDocument; tagged: boolean }> {
  const out = await PDFDocument.create({ updateMetadata: false });
  const ctx = out.context;
  const rootRef = ctx.nextRef();
  const docElemRef = ctx.nextRef();
  const kids: PDFObject[] = [];
  const parents: [number, PDFObject][] = [];
  const roleMap = ctx.obj({});
  let offset = 0;
  let tagged = true;
  let lang: PDFObject | undefined;

  for (const src of docs) {
    const copier = PDFObjectCopier.for(src.context, ctx);
    const srcRoot = src.catalog.lookupMaybe(PDFName.of('StructTreeRoot'), PDFDict);
    const srcRootRef = src.catalog.get(PDFName.of('StructTreeRoot'));
    // Elements whose parent was the old root now hang under our Document element.
    if (srcRootRef instanceof PDFRef) (copier as unknown as { traversedObjects: Map<unknown, unknown> }).traversedObjects.set(srcRootRef, docElemRef);
    if (!srcRoot) tagged = false;
    lang ??= src.catalog.get(PDFName.of('Lang'));

    for (const page of src.getPages()) {
      // Copy by reference so structure elements' /Pg entries resolve to the same copied page.
      const ref = copier.copy(page.ref) as PDFRef;
      const leaf = ctx.lookup(ref) as PDFPageLeaf;
      if (srcRoot) {
        shiftKey(leaf, 'StructParents', offset);
        const annots = leaf.lookupMaybe(PDFName.of('Annots'), PDFArray);
        for (let i = 0; annots && i < annots.size(); i++) {
          const a = annots.lookupMaybe(i, PDFDict);
          if (a) shiftKey(a, 'StructParent', offset);
        }
      }
      out.addPage(PDFPage.of(leaf, ref, out));
    }
    if (!srcRoot) continue;

    const k = srcRoot.get(PDFName.of('K'));
    const top = k instanceof PDFArray ? k.asArray() : k ? [k] : [];
    for (const el of top) {
      const copied = copier.copy(el);
      const dict = copied instanceof PDFRef ? ctx.lookupMaybe(copied, PDFDict) : copied instanceof PDFDict ? copied : undefined;
      // One Document element per file; the inputs' own Document roots become parts of it.
      if (dict?.get(PDFName.of('S')) === PDFName.of('Document')) dict.set(PDFName.of('S'), PDFName.of('Part'));
      dict?.set(PDFName.of('P'), docElemRef);
      kids.push(copied);
    }
    const pairs = numberTree(src, srcRoot.lookupMaybe(PDFName.of('ParentTree'), PDFDict));
    let maxKey = -1;
    for (const [key, value] of pairs) {
      parents.push([key + offset, copier.copy(value)]);
      maxKey = Math.max(maxKey, key);
    }
    const next = srcRoot.lookupMaybe(PDFName.of('ParentTreeNextKey'), PDFNumber)?.asNumber() ?? 0;
    const srcRoles = srcRoot.lookupMaybe(PDFName.of('RoleMap'), PDFDict);
    for (const [name, value] of srcRoles?.entries() ?? []) if (!roleMap.has(name)) roleMap.set(name, copier.copy(value));
    offset += Math.max(next, maxKey + 1);
  }

  if (kids.length > 0) {
    parents.sort((a, b) => a[0] - b[0]);
    const nums = ctx.obj([]);
    for (const [key, value] of parents) nums.push(PDFNumber.of(key)), nums.push(value);
    ctx.assign(docElemRef, ctx.obj({ Type: 'StructElem', S: 'Document', P: rootRef, K: kids }));
    ctx.assign(
      rootRef,
      ctx.obj({ Type: 'StructTreeRoot', K: docElemRef, ParentTree: ctx.register(ctx.obj({ Nums: nums })), ParentTreeNextKey: offset, RoleMap: roleMap }),
    );
    out.catalog.set(PDFName.of('StructTreeRoot'), rootRef);
    out.catalog.set(PDFName.of('MarkInfo'), ctx.obj({ Marked: true }));
  }
  if (lang) out.catalog.set(PDFName.of('Lang'), lang.clone(ctx));
  return { doc: out, tagged: tagged && kids.length > 0 };
}
