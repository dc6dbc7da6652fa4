/**
 * The structure-keeping merge behind `pdfua` (spec §4.6 "attempt PDF/UA compliance"; issue 19
 * item 5). pdf-lib's `copyPages` and `qpdf --pages` drop the tags, so this merge carries every
 * input's structure tree into one tree under a `Document` element: the inputs' own roots become
 * `Part`s, parent-tree keys are renumbered (pages, annotations and form XObjects alike) so marked
 * content still points at its elements, role and class maps are merged (the first input's entry
 * wins a clash), and an input whose language differs from the document's keeps it on its `Part`.
 * An input without a tree gets page-level tags (page-tags.ts) rather than being left out of a
 * tagged document. Bookmarks are kept as in the plain merge.
 */
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFObjectCopier, PDFPage, PDFRef, PDFStream, PDFString, type PDFObject, type PDFPageLeaf } from 'pdf-lib';
import { memoOf, OutlineMerger } from './outline.js';
import { tagPage, type ParentEntries } from './page-tags.js';

/** A structure-keeping merge: `tagged` when every input had its own tree; `coarse` lists the inputs given page-level tags. */
export interface StructureMerge {
  doc: PDFDocument;
  tagged: boolean;
  coarse: number[];
}

/** Flattens a number tree (`Nums` / `Kids`) into key/value pairs. */
function numberTree(node: PDFDict | undefined, acc: ParentEntries = [], depth = 0): ParentEntries {
  if (!node || depth > 32) return acc;
  const nums = node.lookupMaybe(PDFName.of('Nums'), PDFArray);
  for (let i = 0; nums && i + 1 < nums.size(); i += 2) {
    const k = nums.lookup(i);
    if (k instanceof PDFNumber) acc.push([k.asNumber(), nums.get(i + 1)]);
  }
  const kids = node.lookupMaybe(PDFName.of('Kids'), PDFArray);
  for (let i = 0; kids && i < kids.size(); i++) numberTree(kids.lookupMaybe(i, PDFDict), acc, depth + 1);
  return acc;
}

function shiftKey(dict: PDFDict, key: string, offset: number): void {
  const v = dict.get(PDFName.of(key));
  if (v instanceof PDFNumber) dict.set(PDFName.of(key), PDFNumber.of(v.asNumber() + offset));
}

/** An input's document language (catalog `/Lang`) when it is a language tag (letters, digits, hyphens). */
export function langOf(doc: PDFDocument): string | undefined {
  const v = doc.catalog.lookup(PDFName.of('Lang'));
  const tag = v instanceof PDFString || v instanceof PDFHexString ? v.decodeText().trim() : '';
  return /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag) ? tag : undefined;
}

/** Builds the merged tree input by input, in page order. */
class StructureMerger {
  private readonly rootRef: PDFRef;
  private readonly docElemRef: PDFRef;
  private readonly kids: PDFObject[] = [];
  private readonly parents: ParentEntries = [];
  private readonly roleMap: PDFDict;
  private readonly classMap: PDFDict;
  /** The next free parent-tree key. */
  private next = 0;

  constructor(private readonly out: PDFDocument, private readonly lang: string | undefined) {
    const ctx = out.context;
    this.rootRef = ctx.nextRef();
    this.docElemRef = ctx.nextRef();
    this.roleMap = ctx.obj({});
    this.classMap = ctx.obj({});
  }

  /** Copies a page by reference (so `/Pg` entries and bookmarks resolve to this copy) and appends it. */
  private copyPage(page: PDFPage, copier: PDFObjectCopier): { leaf: PDFPageLeaf; ref: PDFRef } {
    const ref = copier.copy(page.ref) as PDFRef;
    const leaf = this.out.context.lookup(ref) as PDFPageLeaf;
    // PDF/UA: annotations are visited in structure order.
    if (leaf.has(PDFName.of('Annots'))) leaf.set(PDFName.of('Tabs'), PDFName.of('S'));
    this.out.addPage(PDFPage.of(leaf, ref, this.out));
    return { leaf, ref };
  }

  /** Marks an element with its input's language when that differs from the document's. */
  private withLang(el: PDFDict | undefined, lang: string | undefined): void {
    if (el && lang && lang !== this.lang && !el.has(PDFName.of('Lang'))) el.set(PDFName.of('Lang'), PDFString.of(lang));
  }

  /** An input with its own structure tree. */
  addTagged(src: PDFDocument, srcRoot: PDFDict, copier: PDFObjectCopier): void {
    const ctx = this.out.context;
    const srcRootRef = src.catalog.get(PDFName.of('StructTreeRoot'));
    // Elements whose parent was the old root now hang under our Document element.
    if (srcRootRef instanceof PDFRef) memoOf(copier).set(srcRootRef, this.docElemRef);
    const offset = this.next;
    const forms = new Set<PDFObject>();
    for (const page of src.getPages()) {
      const { leaf } = this.copyPage(page, copier);
      shiftKey(leaf, 'StructParents', offset);
      const annots = leaf.lookupMaybe(PDFName.of('Annots'), PDFArray);
      for (let i = 0; annots && i < annots.size(); i++) {
        const a = annots.lookupMaybe(i, PDFDict);
        if (a) shiftKey(a, 'StructParent', offset);
      }
      this.shiftForms(leaf.lookupMaybe(PDFName.of('Resources'), PDFDict), offset, forms);
    }
    const lang = langOf(src);
    const k = srcRoot.get(PDFName.of('K'));
    for (const el of k instanceof PDFArray ? k.asArray() : k ? [k] : []) {
      const copied = copier.copy(el);
      const dict = copied instanceof PDFRef ? ctx.lookupMaybe(copied, PDFDict) : copied instanceof PDFDict ? copied : undefined;
      // One Document element per file; the inputs' own Document roots become parts of it.
      if (dict?.get(PDFName.of('S')) === PDFName.of('Document')) dict.set(PDFName.of('S'), PDFName.of('Part'));
      dict?.set(PDFName.of('P'), this.docElemRef);
      this.withLang(dict, lang);
      this.kids.push(copied);
    }
    let maxKey = -1;
    for (const [key, value] of numberTree(srcRoot.lookupMaybe(PDFName.of('ParentTree'), PDFDict))) {
      this.parents.push([key + offset, copier.copy(value)]);
      maxKey = Math.max(maxKey, key);
    }
    const declared = srcRoot.lookupMaybe(PDFName.of('ParentTreeNextKey'), PDFNumber)?.asNumber() ?? 0;
    this.next = offset + Math.max(declared, maxKey + 1);
    for (const [map, name] of [[this.roleMap, 'RoleMap'], [this.classMap, 'ClassMap']] as const) {
      for (const [key, value] of srcRoot.lookupMaybe(PDFName.of(name), PDFDict)?.entries() ?? []) if (!map.has(key)) map.set(key, copier.copy(value));
    }
  }

  /** Form XObjects with marked content carry parent-tree keys too (`/StructParents`). */
  private shiftForms(resources: PDFDict | undefined, offset: number, seen: Set<PDFObject>, depth = 0): void {
    const xobjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
    if (!xobjects || depth > 16) return;
    for (const [, value] of xobjects.entries()) {
      if (seen.has(value)) continue;
      seen.add(value);
      const form = value instanceof PDFRef ? this.out.context.lookup(value) : value;
      if (!(form instanceof PDFStream)) continue;
      shiftKey(form.dict, 'StructParents', offset);
      this.shiftForms(form.dict.lookupMaybe(PDFName.of('Resources'), PDFDict), offset, seen, depth + 1);
    }
  }

  /** An input without a structure tree: one `Part` of page-level tags. */
  addUntagged(src: PDFDocument, copier: PDFObjectCopier): void {
    const ctx = this.out.context;
    const partRef = ctx.nextRef();
    const partKids: PDFObject[] = [];
    for (const page of src.getPages()) {
      const { leaf, ref } = this.copyPage(page, copier);
      this.next = tagPage(ctx, leaf, ref, partRef, partKids, this.parents, this.next);
    }
    const part = ctx.obj({ Type: 'StructElem', S: 'Part', P: this.docElemRef, K: partKids });
    this.withLang(part, langOf(src));
    ctx.assign(partRef, part);
    this.kids.push(partRef);
  }

  /** Writes the tree root, the Document element, `MarkInfo` and the document language. */
  finish(): void {
    const ctx = this.out.context;
    const nums = ctx.obj([]);
    for (const [key, value] of this.parents.sort((a, b) => a[0] - b[0])) nums.push(PDFNumber.of(key)), nums.push(value);
    ctx.assign(this.docElemRef, ctx.obj({ Type: 'StructElem', S: 'Document', P: this.rootRef, K: this.kids }));
    const root = ctx.obj({ Type: 'StructTreeRoot', K: this.docElemRef, ParentTree: ctx.register(ctx.obj({ Nums: nums })), ParentTreeNextKey: this.next, RoleMap: this.roleMap });
    if (this.classMap.keys().length > 0) root.set(PDFName.of('ClassMap'), this.classMap);
    ctx.assign(this.rootRef, root);
    this.out.catalog.set(PDFName.of('StructTreeRoot'), this.rootRef);
    this.out.catalog.set(PDFName.of('MarkInfo'), ctx.obj({ Marked: true }));
    if (this.lang) this.out.catalog.set(PDFName.of('Lang'), PDFString.of(this.lang));
  }
}

/** Merges pages, bookmarks and structure trees; the result is always a tagged PDF. */
export async function mergeStructure(docs: PDFDocument[]): Promise<StructureMerge> {
  const out = await PDFDocument.create({ updateMetadata: false });
  // The document speaks the first language an input names; the others keep theirs on their Part.
  const tree = new StructureMerger(out, docs.map(langOf).find(Boolean));
  const outlines = new OutlineMerger(out);
  const coarse: number[] = [];
  for (const [i, src] of docs.entries()) {
    const copier = PDFObjectCopier.for(src.context, out.context);
    const srcRoot = src.catalog.lookupMaybe(PDFName.of('StructTreeRoot'), PDFDict);
    if (srcRoot) tree.addTagged(src, srcRoot, copier);
    else {
      tree.addUntagged(src, copier);
      coarse.push(i);
    }
    outlines.add(src, copier);
  }
  tree.finish();
  outlines.finish();
  return { doc: out, tagged: coarse.length === 0, coarse };
}
