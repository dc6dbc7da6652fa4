/**
 * Merging with pdf-lib (spec §4.6: page order preserved). The plain merge copies pages; the
 * structure-keeping merge (for `pdfua`) also carries every input's structure tree into one
 * tree under a `Document` element, renumbering the parent-tree keys so marked content still
 * points at the right elements — pdf-lib's `copyPages` and `qpdf --pages` both drop the tags.
 * Both keep the inputs' bookmarks, one input after the other.
 */
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFString,
  PDFName,
  PDFNumber,
  PDFObjectCopier,
  PDFPage,
  PDFRef,
  type PDFObject,
  type PDFPageLeaf,
} from 'pdf-lib';

/** Appends every page of `docs` to a new document, in order, keeping each input's bookmarks. */
export async function mergePlain(docs: PDFDocument[]): Promise<PDFDocument> {
  const out = await PDFDocument.create({ updateMetadata: false });
  const outlines = new OutlineMerger(out);
  for (const src of docs) {
    const copier = PDFObjectCopier.for(src.context, out.context);
    for (const page of src.getPages()) {
      // By reference, so bookmark destinations naming this page find the copy, not a second one.
      const ref = copier.copy(page.ref) as PDFRef;
      out.addPage(PDFPage.of(out.context.lookup(ref) as PDFPageLeaf, ref, out));
    }
    outlines.add(src, copier);
  }
  outlines.finish();
  return out;
}

/** The copier's memo of copied references (private in pdf-lib, needed to redirect a reference). */
function memoOf(copier: PDFObjectCopier): Map<PDFRef, PDFRef> {
  return (copier as unknown as { traversedObjects: Map<PDFRef, PDFRef> }).traversedObjects;
}

/** Pairs of a name tree (`Names` / `Kids`), keyed by the decoded name. */
function nameTree(node: PDFDict | undefined, acc = new Map<string, PDFObject>(), depth = 0): Map<string, PDFObject> {
  if (!node || depth > 32) return acc;
  const names = node.lookupMaybe(PDFName.of('Names'), PDFArray);
  for (let i = 0; names && i + 1 < names.size(); i += 2) {
    const k = names.lookup(i);
    if (k instanceof PDFString || k instanceof PDFHexString) acc.set(k.decodeText(), names.get(i + 1));
  }
  const kids = node.lookupMaybe(PDFName.of('Kids'), PDFArray);
  for (let i = 0; kids && i < kids.size(); i++) nameTree(kids.lookupMaybe(i, PDFDict), acc, depth + 1);
  return acc;
}

/**
 * Carries every input's bookmarks (document outline) into the merged file, one input after the
 * other at the top level. Named destinations are turned into explicit ones first, since the
 * inputs' name dictionaries are not merged.
 */
class OutlineMerger {
  private readonly rootRef: PDFRef;
  private first: PDFRef | undefined;
  private last: PDFRef | undefined;
  private count = 0;

  constructor(private readonly out: PDFDocument) {
    this.rootRef = out.context.nextRef();
  }

  /** Call after `copier` copied `src`'s pages by reference. */
  add(src: PDFDocument, copier: PDFObjectCopier): void {
    const srcRootRef = src.catalog.get(PDFName.of('Outlines'));
    const srcRoot = src.catalog.lookupMaybe(PDFName.of('Outlines'), PDFDict);
    const firstRef = srcRoot?.get(PDFName.of('First'));
    const lastRef = srcRoot?.get(PDFName.of('Last'));
    if (!(srcRootRef instanceof PDFRef) || !(firstRef instanceof PDFRef) || !(lastRef instanceof PDFRef)) return;
    this.explicitDestinations(src, firstRef);
    // Top-level items' /Parent now names the merged outline root.
    memoOf(copier).set(srcRootRef, this.rootRef);
    const first = copier.copy(firstRef) as PDFRef;
    const last = copier.copy(lastRef) as PDFRef;
    const ctx = this.out.context;
    if (this.last) {
      ctx.lookup(this.last, PDFDict).set(PDFName.of('Next'), first);
      ctx.lookup(first, PDFDict).set(PDFName.of('Prev'), this.last);
    }
    this.first ??= first;
    this.last = last;
    this.count += Math.abs(srcRoot!.lookupMaybe(PDFName.of('Count'), PDFNumber)?.asNumber() ?? 0);
  }

  /** Writes the merged outline root, if any input had bookmarks. */
  finish(): void {
    if (!this.first || !this.last) return;
    const ctx = this.out.context;
    ctx.assign(this.rootRef, ctx.obj({ Type: 'Outlines', First: this.first, Last: this.last, Count: this.count }));
    this.out.catalog.set(PDFName.of('Outlines'), this.rootRef);
  }

  /** Rewrites named destinations of the items from `firstRef` on (depth first) as explicit ones. */
  private explicitDestinations(src: PDFDocument, firstRef: PDFRef): void {
    const oldStyle = src.catalog.lookupMaybe(PDFName.of('Dests'), PDFDict);
    let tree: Map<string, PDFObject> | undefined;
    const resolve = (name: PDFObject): PDFObject | undefined => {
      let target: PDFObject | undefined;
      if (name instanceof PDFName) target = oldStyle?.get(name);
      else if (name instanceof PDFString || name instanceof PDFHexString) {
        tree ??= nameTree(src.catalog.lookupMaybe(PDFName.of('Names'), PDFDict)?.lookupMaybe(PDFName.of('Dests'), PDFDict));
        target = tree.get(name.decodeText());
      } else return name;
      const value = target instanceof PDFRef ? src.context.lookup(target) : target;
      // A named destination is an array, or a dictionary holding it under /D.
      return value instanceof PDFDict ? value.get(PDFName.of('D')) : value;
    };
    const seen = new Set<PDFRef>();
    const stack: PDFRef[] = [firstRef];
    while (stack.length > 0) {
      const ref = stack.pop()!;
      if (seen.has(ref) || seen.size > 100_000) continue;
      seen.add(ref);
      const item = src.context.lookupMaybe(ref, PDFDict);
      if (!item) continue;
      const dest = item.get(PDFName.of('Dest'));
      if (dest) {
        const explicit = resolve(dest);
        if (explicit) item.set(PDFName.of('Dest'), explicit);
        else item.delete(PDFName.of('Dest'));
      }
      const action = item.lookupMaybe(PDFName.of('A'), PDFDict);
      if (action?.get(PDFName.of('S')) === PDFName.of('GoTo')) {
        const d = action.get(PDFName.of('D'));
        const explicit = d ? resolve(d) : undefined;
        if (explicit) action.set(PDFName.of('D'), explicit);
        else item.delete(PDFName.of('A'));
      }
      for (const link of ['First', 'Next']) {
        const next = item.get(PDFName.of(link));
        if (next instanceof PDFRef) stack.push(next);
      }
    }
  }
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
  const outlines = new OutlineMerger(out);

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
    outlines.add(src, copier);
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
  outlines.finish();
  return { doc: out, tagged: tagged && kids.length > 0 };
}
